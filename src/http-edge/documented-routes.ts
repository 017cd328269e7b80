/** One documented path: its pattern as express matches it, and the methods (upper case) it serves with their query parameters. */
export interface DocumentedRoute {
  route: string;
  pattern: RegExp;
  /** literal segments: `/v1/receipts/verify` is tried before `/v1/receipts/{id}` */
  literals: number;
  /** method → the query parameters it takes */
  methods: Map<string, readonly string[]>;
}

type Paths = Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;

/** Every path of an OpenAPI document, most literal first: the one list the query and method guards read. */
export function documentedRoutes(document: Record<string, unknown>): DocumentedRoute[] {
  const routes: DocumentedRoute[] = [];
  for (const [route, operations] of Object.entries(document['paths'] as Paths)) {
    const segments = route.split('/').filter(Boolean);
    const source = segments.map((segment) => (/^\{\w+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
    const methods = new Map<string, readonly string[]>();
    for (const [method, operation] of Object.entries(operations)) {
      methods.set(method.toUpperCase(), (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name));
    }
    // express routes without regard to case or a trailing slash: so are a request's route and methods looked up
    routes.push({ route, pattern: new RegExp(`^/${source}/?$`, 'i'), literals: segments.filter((segment) => !segment.startsWith('{')).length, methods });
  }
  return routes.sort((a, b) => b.literals - a.literals);
}

/** The documented route a request path is, if any (the most literal that matches). */
export function routeOf(routes: readonly DocumentedRoute[], path: string): DocumentedRoute | undefined {
  return routes.find((candidate) => candidate.pattern.test(path));
}
