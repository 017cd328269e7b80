import { ownValue } from './params.js';
import type { ErrorCode } from '../core/index.js';
import type { OutputEncoding } from './bounded-output.js';
import type { ForgejoConfig } from './execution-context.js';
import { encodeRepositoryPath, type ApiAnswer, type ForgejoRepositoryApi } from './forgejo-api.js';
import type { Params } from './params.js';

/** What one Forgejo method produced: the raw bytes of the answer, or a failure. */
export type MethodOutcome =
  | { ok: true; output: Buffer | string; encoding?: OutputEncoding }
  | { ok: false; code: ErrorCode; message: string };

/** One `git-forgejo` method. */
export type ForgejoMethod = (api: ForgejoRepositoryApi, params: Params, config: ForgejoConfig) => Promise<MethodOutcome>;

/** Forgejo pages hold at most 50 items. */
const PAGE_LIMIT = 50;
/** The most commits one `list_commits` reads (20 pages): a schema may allow more, a model may ask for any number. */
const COMMITS_LIMIT = 1000;
/** Git trees come in pages of at most 1000 entries. */
const TREE_PAGE = 1000;
/** A tree of more pages than this is refused rather than read for ever. */
const TREE_PAGE_LIMIT = 200;

const failure = (answer: Extract<ApiAnswer, { ok: false }>): MethodOutcome => ({ ok: false, code: answer.code, message: answer.message });
const invalid = (message: string): MethodOutcome => ({ ok: false, code: 'INVALID_PARAMS', message });

function text(params: Params, name: string): string | undefined {
  const value = ownValue(params, name);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function encodedPath(params: Params, name = 'path'): string | MethodOutcome {
  const path = text(params, name);
  if (path === undefined) return invalid(`parameter '${name}' is required: a path inside the repository`);
  return encodeRepositoryPath(path) ?? invalid(`parameter '${name}' may not contain '.' or '..' segments`);
}

function hasNextPage(headers: Record<string, string | string[] | undefined>): boolean | undefined {
  const link = headers.link;
  if (link === undefined) return undefined;
  return /rel="next"/.test(Array.isArray(link) ? link.join(',') : link);
}

function query(values: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value !== undefined) search.set(key, String(value));
  return `?${search.toString()}`;
}

/** `read_file {path, ref?, encoding?}`: the file's bytes at a ref, decoded from the API's base64. */
const readFile: ForgejoMethod = async (api, params) => {
  const path = encodedPath(params);
  if (typeof path !== 'string') return path;
  const answer = await api.send('GET', api.repositoryPath(`/contents/${path}${query({ ref: text(params, 'ref') })}`));
  if (!answer.ok) return failure(answer);
  const file = answer.json as { type?: string; content?: string | null; size?: number } | unknown[];
  if (Array.isArray(file) || file.type === 'dir') return invalid(`'${text(params, 'path')}' is a folder; use list_tree to list it`);
  if (!file.content && (file.size ?? 0) > 0) {
    return { ok: false, code: 'HTTP_ERROR', message: `Forgejo sent no inline content for '${text(params, 'path')}' (${file.size} bytes, over its 10 MiB inline limit)` };
  }
  return { ok: true, output: Buffer.from(file.content ?? '', 'base64'), encoding: params.encoding === 'base64' ? 'base64' : 'utf8' };
};

/** `list_commits {limit?, ref?, path?}`: the newest commits, as the API's JSON array. */
const listCommits: ForgejoMethod = async (api, params) => {
  const limit = typeof params.limit === 'number' && params.limit > 0 ? Math.floor(params.limit) : 10;
  if (limit > COMMITS_LIMIT) return invalid(`parameter 'limit' may be at most ${COMMITS_LIMIT} commits (got ${params.limit as number}); page through older ones with 'ref'`);
  const commits: unknown[] = [];
  // one page size for every page: page numbers count in it
  const pageSize = Math.min(PAGE_LIMIT, limit);
  for (let page = 1; commits.length < limit; page += 1) {
    const suffix = query({ sha: text(params, 'ref'), path: text(params, 'path'), page, limit: pageSize, stat: 'false', files: 'false', verification: 'false' });
    const answer = await api.send('GET', api.repositoryPath(`/commits${suffix}`));
    if (!answer.ok) return failure(answer);
    const items = Array.isArray(answer.json) ? answer.json : [];
    commits.push(...items.slice(0, limit - commits.length));
    // the Link header says whether there is a next page; a server may hold pages smaller than asked
    const more = hasNextPage(answer.headers) ?? items.length >= pageSize;
    if (!more || items.length === 0) break;
  }
  return { ok: true, output: JSON.stringify(commits) };
};

async function resolveTreeRef(api: ForgejoRepositoryApi, ref: string | undefined): Promise<string | MethodOutcome> {
  if (ref !== undefined && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(ref)) return ref;
  let branch = ref;
  if (branch === undefined) {
    const repository = await api.send('GET', api.repositoryPath());
    if (!repository.ok) return failure(repository);
    branch = (repository.json as { default_branch?: string }).default_branch ?? 'main';
  }
  const encoded = encodeRepositoryPath(branch);
  if (encoded === undefined) return invalid(`parameter 'ref' may not contain '.' or '..' segments`);
  const answer = await api.send('GET', api.repositoryPath(`/branches/${encoded}`));
  // not a branch: a tag or a short sha, which the trees endpoint resolves itself
  if (!answer.ok) return answer.status === 404 ? encodeURIComponent(branch) : failure(answer);
  return (answer.json as { commit?: { id?: string } }).commit?.id ?? encodeURIComponent(branch);
}

/** `list_tree {ref?, path?, recursive?}`: every entry of the tree at a ref, reading all its pages. */
const listTree: ForgejoMethod = async (api, params) => {
  const sha = await resolveTreeRef(api, text(params, 'ref'));
  if (typeof sha !== 'string') return sha;
  const recursive = params.recursive === false ? 'false' : 'true';
  const entries: Array<{ path?: string }> = [];
  for (let page = 1; ; page += 1) {
    if (page > TREE_PAGE_LIMIT) return { ok: false, code: 'HTTP_ERROR', message: `the tree has more than ${TREE_PAGE_LIMIT * TREE_PAGE} entries; list a folder with 'path'` };
    const answer = await api.send('GET', api.repositoryPath(`/git/trees/${sha}${query({ recursive, page, per_page: TREE_PAGE })}`));
    if (!answer.ok) return failure(answer);
    const tree = answer.json as { tree?: Array<{ path?: string }>; truncated?: boolean };
    for (const entry of tree.tree ?? []) entries.push(entry);
    if (!tree.truncated || (tree.tree ?? []).length === 0) break;
  }
  const prefix = text(params, 'path')?.replace(/^\/+|\/+$/g, '');
  const kept = prefix ? entries.filter((entry) => entry.path === prefix || entry.path?.startsWith(`${prefix}/`)) : entries;
  return { ok: true, output: JSON.stringify(kept) };
};

/** `write_file {path, content, message?, branch?, encoding?}`: one commit creating the file (POST) or updating it (PUT with its blob sha). */
const writeFile: ForgejoMethod = async (api, params, config) => {
  const path = encodedPath(params);
  if (typeof path !== 'string') return path;
  if (typeof params.content !== 'string') return invalid(`parameter 'content' is required: the new file content as text`);
  const branch = text(params, 'branch');
  const current = await api.send('GET', api.repositoryPath(`/contents/${path}${query({ ref: branch })}`));
  if (!current.ok && current.status !== 404) return failure(current);
  const sha = current.ok ? (current.json as { sha?: string }).sha : undefined;
  const body = {
    content: params.encoding === 'base64' ? params.content : Buffer.from(params.content).toString('base64'),
    message: text(params, 'message') ?? `${sha ? 'Update' : 'Create'} ${text(params, 'path')}`,
    ...(branch ? { branch } : {}),
    ...(sha ? { sha } : {}),
    ...(config.author ? { author: config.author, committer: config.author } : {}),
  };
  const answer = await api.send(sha ? 'PUT' : 'POST', api.repositoryPath(`/contents/${path}`), body);
  return answer.ok ? { ok: true, output: answer.text } : failure(answer);
};

/** `create_issue {title, body?, labels?, assignees?}`: a new issue, as the API's JSON. */
const createIssue: ForgejoMethod = async (api, params) => {
  const title = text(params, 'title');
  if (title === undefined) return invalid(`parameter 'title' is required: the issue title`);
  const body: Params = { title };
  for (const name of ['body', 'labels', 'assignees'] as const) if (ownValue(params, name) !== undefined) body[name] = ownValue(params, name);
  const answer = await api.send('POST', api.repositoryPath('/issues'), body);
  return answer.ok ? { ok: true, output: answer.text } : failure(answer);
};

/** The methods a `git-forgejo` tool's `method` may name. */
export const FORGEJO_METHODS: Readonly<Record<string, ForgejoMethod>> = {
  read_file: readFile,
  list_commits: listCommits,
  list_tree: listTree,
  write_file: writeFile,
  create_issue: createIssue,
};
