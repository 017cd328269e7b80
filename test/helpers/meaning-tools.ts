import { makeToolYaml } from './git.js';

// The vector stage's registry (issue #11): twelve tools on twelve topics, one about the weather, and a request that
// shares no word with any of them but is near the weather tool in meaning.

/** Twelve tools on twelve topics (name → intent). */
export const TOPICAL_TOOLS: Record<string, string> = {
  'flight-status': 'the departure and arrival times of a plane',
  'invoice-send': 'email an invoice to a customer',
  'disk-usage': 'how much space the folders take on disk',
  'recipe-find': 'find recipes with the ingredients you have',
  'stock-quote': 'the latest share price of a listed company',
  'translate-text': 'translate text into another language',
  'calendar-add': 'add a meeting to the calendar',
  'password-reset': 'reset the password of an account',
  'city-weather': 'rain, snow and wind expected in a city',
  'parcel-track': 'where a parcel sent by post is now',
  'music-play': 'play a song on the speakers',
  'printer-queue': 'the documents waiting to be printed',
};

/** A request sharing no word with `city-weather` (nor with any other tool) but near it in meaning. */
export const STORM = 'will a storm hit tomorrow';

/** The tools' files (name → intent) for a repository. */
export function meaningToolFiles(tools: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(tools).map(([name, intent]) => [`tools/${name}/TOOL.hdlp`, makeToolYaml(name, { display: name, intent })]));
}
