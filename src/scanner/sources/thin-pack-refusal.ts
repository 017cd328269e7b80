/**
 * A fetch refused for what its thin pack needs of the clone: bases from outside it past what a fetch may append, or
 * one the clone cannot give (missing, or over what a read may hold). A fresh clone's pack stands alone and needs
 * neither, so the remote source starts the clone over instead of failing every later fetch the same way.
 */
export class ThinPackRefusal extends Error {
  override readonly name = 'ThinPackRefusal';
}
