export function newest(dir: string, extension: string): number;
export function distIsStale(root: string): boolean;
