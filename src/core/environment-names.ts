// Variables through which a value is read as code, as options of a program, or picks the program or
// its configuration (git reads GIT_CONFIG_PARAMETERS, a shell ENV, bash BASH_FUNC_name%% as a function,
// a loader LD_PRELOAD, zsh ZDOTDIR, Go GOFLAGS, TLS libraries SSLKEYLOGFILE, git and curl config files
// under HOME). A parameter, which the caller chooses, may never fill them. The list is deliberately
// broad: a tool that needs one of them sets it to a fixed value.
const CODE_BEARING = new RegExp(
  '^(' +
    [
      // shells
      'PATH', 'IFS', 'ENV', 'BASH_ENV', 'BASH_FUNC_.*', 'BASH_XTRACEFD', 'BASH_LOADABLES_PATH', 'BASH_COMPAT', 'PS[0-4]',
      'PROMPT_COMMAND', 'SHELLOPTS', 'BASHOPTS', 'SHELL', 'CDPATH', 'GLOBIGNORE', 'FPATH', 'ZDOTDIR', 'ZSH_.*', 'KSH_.*',
      'HISTFILE', 'INPUTRC', 'FCEDIT', 'POSIXLY_CORRECT',
      // where programs find their configuration
      'HOME', 'XDG_.*', 'TMPDIR', 'TZDIR', 'NLSPATH', 'HOSTALIASES', 'RES_OPTIONS', 'LOCALDOMAIN', 'RESOLV_.*',
      // programs a program starts
      'EDITOR', 'VISUAL', 'SUDO_EDITOR', 'PAGER', 'MANPAGER', 'BROWSER', 'LESS', 'MORE', 'LESSOPEN', 'LESSCLOSE', 'LESSKEY',
      'TERMINFO', 'TERMCAP', 'VIMINIT', 'EXINIT', 'MYVIMRC', 'VIMRUNTIME',
      // the C library and the loader
      'GCONV_PATH', 'LOCPATH', 'GLIBC_TUNABLES', 'MALLOC_.*', 'LD_.*', 'DYLD_.*',
      // TLS, proxies, credentials files
      'OPENSSL_.*', 'SSL_CERT_.*', 'SSLKEYLOGFILE', 'REQUESTS_CA_BUNDLE', 'CURL_HOME', 'CURL_CA_BUNDLE', 'WGETRC', '.*_PROXY',
      'KRB5.*', 'GNUPGHOME', 'GPG_.*', 'KUBECONFIG', 'DOCKER_.*', 'AWS_CONFIG_FILE', 'AWS_SHARED_CREDENTIALS_FILE', 'BOTO_CONFIG', 'CLOUDSDK_.*',
      // version control and remote shells
      'GIT_.*', 'SSH_.*', '.*_ASKPASS', 'HGRCPATH', 'HGPLAIN', 'HGEDITOR', 'SVN_.*', 'CVS_RSH', 'RSYNC_RSH',
      // options of archivers and tools read from the environment
      'GZIP', 'BZIP2?', 'XZ_OPT', 'XZ_DEFAULTS', 'ZSTD_.*', 'TAR_OPTIONS', 'GREP_OPTIONS',
      // language runtimes and build tools
      'NODE_.*', 'NPM_CONFIG_.*', 'YARN_.*', 'BUN_.*', 'DENO_.*', 'ELECTRON_.*',
      'PYTHON.*', 'PIP_.*', 'VIRTUAL_ENV', 'CONDA_.*', 'PERL.*', 'RUBY.*', 'GEM_.*', 'BUNDLE_.*', 'LUA_.*', 'TCL.*', 'PHP.*', 'COMPOSER_.*',
      'CLASSPATH', 'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'JAVA_OPTIONS', 'JAVA_HOME', 'MAVEN_OPTS', 'GRADLE_OPTS', 'GRADLE_USER_HOME', 'ANT_OPTS', 'SBT_OPTS',
      'GOFLAGS', 'GOPATH', 'GOROOT', 'GOPROXY', 'GOPRIVATE', 'GONOPROXY', 'GONOSUMDB', 'GOINSECURE', 'GOENV', 'GOTOOLCHAIN', 'GOCACHE',
      'GOMODCACHE', 'GOWORK', 'GODEBUG', 'GOEXPERIMENT', 'GOOS', 'GOARCH', 'GOTMPDIR', 'GCCGO', 'CGO_.*',
      'CARGO_.*', 'RUSTC.*', 'RUSTFLAGS', 'RUSTDOCFLAGS', 'RUSTUP_.*', 'DOTNET_.*', 'COMPLUS_.*', 'CORECLR_.*', 'R_.*',
      'CC', 'CXX', 'CPP', 'LD', 'AR', 'AS', 'CFLAGS', 'CXXFLAGS', 'CPPFLAGS', 'LDFLAGS', 'LIBS', 'MAKEFLAGS', 'MFLAGS', 'MAKEFILES',
      'PKG_CONFIG_.*', 'NIX_.*',
    ].join('|') +
    ')$',
  'i',
);

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

// What the dynamic loader and the C library load or obey at a program's start (glibc ignores them for setuid programs
// for that reason), and what a shell runs when it starts (a bash function, a startup file, its options).
const STARTUP_VARIABLE = /^(LD_.*|GCONV_PATH|GETCONF_DIR|GLIBC_TUNABLES|HOSTALIASES|LOCPATH|NLSPATH|RESOLV_HOST_CONF|MALLOC_.*|DYLD_.*|BASH_ENV|ENV|BASH_FUNC_.*|SHELLOPTS|BASHOPTS)$/;

/**
 * Why a tool may not set the environment variable `name` at all, even to a fixed value, or undefined: a loader or
 * shell-startup variable (`LD_PRELOAD`, `GCONV_PATH`, `BASH_ENV`…) runs code in whatever process starts with it; the
 * sandbox gives the tool's environment to the tool alone, and this refusal is the second wall (review O, O1 and O2).
 */
export function startupVariableProblem(name: string): string | undefined {
  // an environment entry is `name=value` split at its first `=`: a key `BASH_ENV=/ws/evil` sets BASH_ENV (review P, P1)
  if (name.length === 0 || name.includes('\0')) return `${JSON.stringify(name)} is not a variable name: a name is not empty and holds no NUL`;
  if (name.includes('=')) return `${JSON.stringify(name)} is not a variable name: an environment entry is split at its first '=', so this would set '${name.split('=', 1)[0]}'`;
  return STARTUP_VARIABLE.test(name) ? `the dynamic loader or a shell would load or run what '${name}' names when a program starts` : undefined;
}

/** Whether an environment variable is one a parameter may not set, because a program would run or obey its value. */
export function isCodeBearingVariable(name: string): boolean {
  return CODE_BEARING.test(name);
}

/**
 * Why a parameter may not fill the environment variable `name`, or undefined when it may: only plain
 * identifiers (`[A-Za-z_][A-Za-z0-9_]*`; bash imports `BASH_FUNC_ls%%` as a function) that no program
 * runs or obeys.
 */
export function parameterVariableProblem(name: string): string | undefined {
  if (!PLAIN_NAME.test(name)) return `'${name}' is not a plain variable name ([A-Za-z_][A-Za-z0-9_]*), and a shell may read such a variable as code`;
  if (isCodeBearingVariable(name)) return `a program would run or obey the value of '${name}'`;
  return undefined;
}

/** The variable a `shell.script` tool reads a parameter from: `HLDP_PARAM_` and the name in capitals, other signs as `_`. */
export function scriptVariableName(parameter: string): string {
  return `HLDP_PARAM_${parameter.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`;
}

/** The script variables that more than one of `parameters` would set (`path` and `PATH`, `a-b` and `a_b`), each with those parameters. */
export function sharedScriptVariables(parameters: readonly string[]): Map<string, string[]> {
  const byVariable = new Map<string, string[]>();
  for (const parameter of parameters) {
    const variable = scriptVariableName(parameter);
    byVariable.set(variable, [...(byVariable.get(variable) ?? []), parameter]);
  }
  for (const [variable, names] of byVariable) if (names.length < 2) byVariable.delete(variable);
  return byVariable;
}
