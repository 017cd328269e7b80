// Variables through which a value is read as code, as options of a program, or picks the program or
// its configuration (git reads GIT_CONFIG_PARAMETERS, a shell ENV, a loader LD_PRELOAD, git and curl
// read config files under HOME). A parameter, which the caller chooses, may never fill them. The
// list is deliberately broad: a tool that needs one of them sets it to a fixed value.
const CODE_BEARING = new RegExp(
  '^(' +
    [
      'PATH', 'IFS', 'ENV', 'BASH_ENV', 'PS[0-4]', 'PROMPT_COMMAND', 'SHELLOPTS', 'BASHOPTS', 'SHELL', 'CDPATH',
      'HOME', 'XDG_CONFIG_HOME', 'XDG_CONFIG_DIRS', 'XDG_DATA_HOME', 'TMPDIR',
      'EDITOR', 'VISUAL', 'PAGER', 'MANPAGER', 'BROWSER', 'LESSOPEN', 'LESSCLOSE', 'LESSKEY', 'TERMINFO',
      'GCONV_PATH', 'LOCPATH', 'GLIBC_TUNABLES', 'MALLOC_.*', 'LD_.*', 'DYLD_.*',
      'OPENSSL_.*', 'SSL_CERT_.*', 'CURL_HOME', 'CURL_CA_BUNDLE', 'WGETRC', '.*_PROXY',
      'GIT_.*', 'SSH_.*', '.*_ASKPASS',
      'NODE_.*', 'NPM_CONFIG_.*', 'PYTHON.*', 'PERL.*', 'RUBY.*', 'GEM_.*', 'BUNDLE_.*', 'LUA_.*', 'TCL.*',
      'CLASSPATH', 'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS',
    ].join('|') +
    ')$',
  'i',
);

/** Whether an environment variable is one a parameter may not set, because a program would run or obey its value. */
export function isCodeBearingVariable(name: string): boolean {
  return CODE_BEARING.test(name);
}
