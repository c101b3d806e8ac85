/** Bytes received in chunks of any size, taken out in exact amounts without joining them. */
export class PieceQueue {
  #pieces: Buffer[] = [];
  bytes = 0;

  add(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#pieces.push(chunk);
    this.bytes += chunk.length;
  }

  /** The next `count` bytes, as views over the chunks that held them. */
  take(count: number): Buffer[] {
    if (count > this.bytes) throw new RangeError(`cannot take ${count} of ${this.bytes} queued bytes`);
    const taken: Buffer[] = [];
    let left = count;
    while (left > 0) {
      const piece = this.#pieces[0]!;
      if (piece.length <= left) {
        taken.push(piece);
        this.#pieces.shift();
        left -= piece.length;
      } else {
        taken.push(piece.subarray(0, left));
        this.#pieces[0] = piece.subarray(left);
        left = 0;
      }
    }
    this.bytes -= count;
    return taken;
  }
}
