/**
 * cdktf records the creation stack of every token and output reference it makes (a plain object
 * passed to Error.captureStackTrace), only to explain a token that later fails to resolve.
 * Formatting those stacks is a fifth of a large synth. While `withoutTokenTraces` runs, such
 * objects get an empty stack; real errors keep theirs. PVEKAAS_TOKEN_TRACES=1 keeps everything
 * (for debugging an unresolvable token).
 */
export function withoutTokenTraces<T>(body: () => T): T {
  if (process.env.PVEKAAS_TOKEN_TRACES === '1') return body();
  const previous = Error.prepareStackTrace;
  Error.prepareStackTrace = (holder: unknown, frames: NodeJS.CallSite[]) => {
    if (holder instanceof Error) {
      return previous ? previous(holder, frames) : `${String(holder)}${frames.map((f) => `\n    at ${String(f)}`).join('')}`;
    }
    return '';
  };
  try {
    return body();
  } finally {
    Error.prepareStackTrace = previous;
  }
}
