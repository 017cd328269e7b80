// The HTTP API's description: the OpenAPI 3.1 document, the JSON Schemas its request bodies are checked against, and the table of its wire error codes.
export { openApiDocument } from './openapi.js';
export { COMPONENT_SCHEMAS } from './openapi-schemas.js';
export { REJECTION_CODES, WIRE_ERRORS, type RejectionCode, type WireErrorCode } from './wire-errors.js';
