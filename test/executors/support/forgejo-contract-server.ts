import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type Request, type Response } from 'express';
import { commitFile, gitText, listTree, resolveCommit, runGit, SERVER_IDENTITY, type Identity } from './bare-git.js';

/** A running contract server and what a test may inspect. */
export interface ForgejoContractServer {
  url: string;
  issues: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Options of the contract server. */
export interface ContractOptions {
  /** the bare repository served as `owner/name` */
  repository: string;
  fullName: string;
  token: string;
  /** largest page of commits (Forgejo: 50) */
  maxPageSize?: number;
  /** entries in a page of a tree (Forgejo: 1000) */
  treePageSize?: number;
  /** runs before each contents write, e.g. to play a concurrent writer */
  beforeWrite?: () => Promise<void>;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

interface Served {
  options: ContractOptions;
  repo: string;
  issues: Array<Record<string, unknown>>;
}

function fail(response: Response, status: number, message: string): void {
  response.status(status).json({ message, url: 'https://forgejo.example/api/swagger' });
}

const wildcard = (request: Request, name: string): string => (request.params[name] as unknown as string[]).join('/');

function serveRepository(app: Express, { options, repo }: Served): void {
  const { repository, fullName } = options;
  app.get(repo, (_request, response) => {
    response.json({ full_name: fullName, default_branch: 'main', empty: false, object_format_name: 'sha1', clone_url: `http://forgejo.example/${fullName}.git` });
  });
  app.get(`${repo}/branches/*branch`, async (request, response) => {
    const name = wildcard(request, 'branch');
    const commit = await resolveCommit(repository, `refs/heads/${name}`);
    if (!commit) return fail(response, 404, `branch does not exist [name: ${name}]`);
    response.json({ name, commit: { id: commit, message: await gitText(repository, ['log', '-1', '--format=%B', commit]) } });
  });
}

function serveContents(app: Express, { options, repo }: Served): void {
  const { repository } = options;
  app.get(`${repo}/contents/*path`, async (request, response) => {
    const ref = (request.query.ref as string | undefined) ?? 'main';
    const commit = await resolveCommit(repository, ref);
    if (!commit) return fail(response, 404, `object does not exist [id: ${ref}]`);
    const path = wildcard(request, 'path');
    const [entry] = await listTree(repository, commit, { paths: [path] });
    if (!entry || entry.path !== path) return fail(response, 404, `object does not exist [id: ${commit}, rel_path: ${path}]`);
    if (entry.type === 'tree') {
      const children = await listTree(repository, commit, { paths: [`${path}/`] });
      response.json(children.map((child) => ({ name: child.path.split('/').pop(), path: child.path, sha: child.sha, type: child.type === 'tree' ? 'dir' : 'file', size: child.size ?? 0 })));
      return;
    }
    const content = await runGit(repository, ['cat-file', 'blob', entry.sha]);
    const lastCommit = await gitText(repository, ['log', '-1', '--format=%H', commit, '--', path]);
    response.json({ name: path.split('/').pop(), path, sha: entry.sha, last_commit_sha: lastCommit, type: 'file', size: content.length, encoding: 'base64', content: content.toString('base64') });
  });
  app.post(`${repo}/contents/*path`, writeContents(options, 'create'));
  app.put(`${repo}/contents/*path`, writeContents(options, 'update'));
}

function writeContents(options: ContractOptions, mode: 'create' | 'update') {
  const { repository } = options;
  return async (request: Request, response: Response) => {
    const body = request.body as { content?: string; message?: string; branch?: string; sha?: string; author?: Identity; committer?: Identity };
    const path = wildcard(request, 'path');
    await options.beforeWrite?.();
    if (typeof body.content !== 'string' || !BASE64.test(body.content)) return fail(response, 422, 'content: must be base64');
    if (mode === 'update' && !body.sha) return fail(response, 422, 'sha: Required');
    const branch = body.branch ?? 'main';
    const parent = await resolveCommit(repository, `refs/heads/${branch}`);
    if (!parent) return fail(response, 404, `branch does not exist [name: ${branch}]`);
    const [existing] = await listTree(repository, parent, { paths: [path] });
    const current = existing?.path === path ? existing : undefined;
    if (mode === 'create' && current) return fail(response, 422, `repository file already exists [path: ${path}]`);
    if (mode === 'update' && !current) return fail(response, 404, `object does not exist [id: ${parent}, rel_path: ${path}]`);
    if (mode === 'update' && current!.sha !== body.sha) return fail(response, 409, `sha does not match [given: ${body.sha}, expected: ${current!.sha}]`);
    const content = Buffer.from(body.content, 'base64');
    const author = body.author ?? SERVER_IDENTITY;
    const commit = await commitFile(repository, { branch, parent, path, content, message: body.message ?? `${mode === 'create' ? 'Add' : 'Update'} ${path}`, author, committer: body.committer ?? author });
    const [written] = await listTree(repository, commit, { paths: [path] });
    response.status(mode === 'create' ? 201 : 200).json({
      content: { name: path.split('/').pop(), path, sha: written!.sha, type: 'file', size: content.length },
      commit: { sha: commit, message: body.message },
    });
  };
}

const LOG_FORMAT = '%H%x1f%P%x1f%an%x1f%ae%x1f%aI%x1f%cn%x1f%ce%x1f%cI%x1f%B%x1e';

function serveHistory(app: Express, { options, repo }: Served): void {
  const { repository } = options;
  const maxPageSize = options.maxPageSize ?? 50;
  const treePageSize = options.treePageSize ?? 1000;
  app.get(`${repo}/commits`, async (request, response) => {
    const ref = (request.query.sha as string | undefined) ?? 'main';
    const commit = await resolveCommit(repository, ref);
    if (!commit) return fail(response, 404, `object does not exist [id: ${ref}]`);
    const page = Math.max(1, Number(request.query.page ?? 1));
    const limit = Math.min(maxPageSize, Math.max(1, Number(request.query.limit ?? 30)));
    const pathArgs = request.query.path ? ['--', String(request.query.path)] : [];
    const total = Number(await gitText(repository, ['rev-list', '--count', commit, ...pathArgs]));
    const log = await gitText(repository, ['log', `--format=${LOG_FORMAT}`, `--skip=${(page - 1) * limit}`, `--max-count=${limit}`, commit, ...pathArgs]);
    const commits = log.split('\x1e').map((record) => record.trim()).filter(Boolean).map((record) => {
      const [sha, parents, an, ae, ad, cn, ce, cd, message] = record.split('\x1f');
      return { sha, commit: { message: `${message!.trim()}\n`, author: { name: an, email: ae, date: ad }, committer: { name: cn, email: ce, date: cd } }, parents: parents ? parents.split(' ').map((parentSha) => ({ sha: parentSha })) : [] };
    });
    response.set('X-Total-Count', String(total));
    if (page * limit < total) response.set('Link', `<${repo}/commits?page=${page + 1}&limit=${limit}>; rel="next"`);
    response.json(commits);
  });
  app.get(`${repo}/git/trees/:sha`, async (request, response) => {
    const tree = await gitText(repository, ['rev-parse', '--verify', '--quiet', `${request.params.sha}^{tree}`]).catch(() => undefined);
    if (!tree) return fail(response, 404, `sha not found [${request.params.sha}]`);
    const page = Math.max(1, Number(request.query.page ?? 1));
    const perPage = Math.min(treePageSize, Math.max(1, Number(request.query.per_page ?? treePageSize)));
    const entries = await listTree(repository, tree, { recursive: request.query.recursive === 'true' });
    const slice = entries.slice((page - 1) * perPage, page * perPage);
    response.json({
      sha: tree,
      url: `${repo}/git/trees/${tree}`,
      tree: slice.map((entry) => ({ path: entry.path, mode: entry.mode, type: entry.type, size: entry.size ?? 0, sha: entry.sha })),
      truncated: page * perPage < entries.length,
      page,
      total_count: entries.length,
    });
  });
}

function serveIssues(app: Express, { repo, issues }: Served): void {
  app.post(`${repo}/issues`, (request, response) => {
    const body = request.body as { title?: unknown; body?: unknown; labels?: unknown; assignees?: unknown };
    if (typeof body.title !== 'string' || body.title === '') return fail(response, 422, 'title: Required');
    const issue = { id: 1000 + issues.length, number: issues.length + 1, title: body.title, body: body.body ?? '', labels: body.labels ?? [], assignees: body.assignees ?? null, state: 'open' };
    issues.push(issue);
    response.status(201).json(issue);
  });
}

/**
 * A local stand-in for Forgejo's REST API: the endpoints `git-forgejo` uses, with their documented shapes
 * and status codes (401, 404, 409 for a stale sha, 422), backed by a real bare git repository.
 */
export async function startForgejoContractServer(options: ContractOptions): Promise<ForgejoContractServer> {
  const served: Served = { options, repo: `/api/v1/repos/${options.fullName}`, issues: [] };
  const app = express();
  app.use(express.json({ limit: '20mb' }));
  app.use((request, response, next) => {
    const header = request.get('authorization') ?? '';
    if (header === `token ${options.token}` || header === `Bearer ${options.token}`) next();
    else fail(response, 401, 'token is required');
  });
  serveRepository(app, served);
  serveContents(app, served);
  serveHistory(app, served);
  serveIssues(app, served);
  app.use((_request, response) => fail(response, 404, 'not found'));
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    issues: served.issues,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
