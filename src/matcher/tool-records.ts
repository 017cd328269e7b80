import { RecordFile } from './record-file.js';
import { ToolRecord, type RecordNumbers, type TermDictionary } from './tool-record.js';

/** The numbers of a kept index's records: the record at position p is `data[offsets[p]..offsets[p + 1]]`, its slot p. */
interface KeptNumbers {
  data: RecordNumbers | RecordFile;
  offsets: Int32Array;
  dictionary: TermDictionary;
}

/**
 * A search index's records by position. Those of an index restored from its file are made when first asked for, each
 * read from the file then (`RecordFile`) or a view of the array its numbers were read into, and kept (the same object
 * from then on): a request asks for the few it ranks. Made all at a restart, 100,000 of them were ~0.15 s of the main thread and as much again of the
 * collector's, copying them out of the young generation, before matching was ready (issue #18).
 */
export class ToolRecords implements Iterable<ToolRecord> {
  private constructor(
    private readonly made: Array<ToolRecord | undefined>,
    private readonly kept: KeptNumbers | undefined,
  ) {}

  /** Records made already (a build's, an update's). */
  static of(records: ToolRecord[]): ToolRecords {
    return new ToolRecords(records, undefined);
  }

  /** The records of a kept index (`data` split by `offsets`, or left in its file), each made when first asked for; slot p at position p. */
  static kept(data: RecordNumbers | RecordFile, offsets: Int32Array, dictionary: TermDictionary): ToolRecords {
    return new ToolRecords(new Array<ToolRecord | undefined>(offsets.length - 1), { data, offsets, dictionary });
  }

  get length(): number {
    return this.made.length;
  }

  /** The record at `position`, undefined outside the list. */
  at(position: number): ToolRecord | undefined {
    let record = this.made[position];
    if (record === undefined && this.kept !== undefined && position >= 0 && position < this.made.length) {
      const { data, offsets, dictionary } = this.kept;
      const from = offsets[position]!;
      const to = offsets[position + 1]!;
      record = new ToolRecord(position, data instanceof RecordFile ? data.read(from, to) : data.subarray(from, to), dictionary);
      this.made[position] = record;
    }
    return record;
  }

  /** The postings' slot of the record at `position` (without making it). */
  slotAt(position: number): number {
    return this.kept !== undefined ? position : this.made[position]!.id;
  }

  /** Its record's numbers' count, without making it. */
  sizeAt(position: number): number {
    if (this.kept !== undefined) return this.kept.offsets[position + 1]! - this.kept.offsets[position]!;
    return this.made[position]!.data.length;
  }

  /** Every record, made, in order. */
  *[Symbol.iterator](): Iterator<ToolRecord> {
    for (let position = 0; position < this.made.length; position++) yield this.at(position)!;
  }

  /** Every record mapped, in order. */
  map<T>(mapping: (record: ToolRecord, position: number) => T): T[] {
    return Array.from({ length: this.made.length }, (_, position) => mapping(this.at(position)!, position));
  }
}
