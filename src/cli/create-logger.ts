import pino, { type Logger } from 'pino';

/** Structured JSON logs on stderr (stdout stays for results and protocols). */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'brush-holder' }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination(2));
}
