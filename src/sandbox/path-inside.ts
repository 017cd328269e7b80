import { sep } from 'node:path';

/** Whether `path` is `folder` or inside it (both absolute and normalised). */
export const isInside = (path: string, folder: string): boolean => path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
