/** The store cannot be opened or reached: names the database (never its password) and the reason. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  readonly code = 'STORE_UNAVAILABLE';
}
