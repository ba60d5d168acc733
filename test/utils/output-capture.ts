/**
 * Records every write of this process to stdout and stderr (Nest's logger at every level, Fastify,
 * console) in `into`, still writing it through; returns what puts both streams back.
 */
export function captureProcessOutput(into: string[]): () => void {
  const restores: Array<() => void> = [];
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      into.push(String(chunk));
      return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    restores.push(() => (stream.write = original as typeof stream.write));
  }
  return () => restores.forEach((restore) => restore());
}
