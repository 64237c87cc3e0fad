/**
 * cdktf records the creation stack of every token and output reference it makes (a plain object
 * passed to Error.captureStackTrace), only to explain a token that later fails to resolve.
 * Formatting those stacks is a fifth of a large synth. While `withoutTokenTraces` runs, such
 * objects get an empty stack; real errors keep theirs. PVEKAAS_TOKEN_TRACES=1 keeps everything
 * (for debugging an unresolvable token).
 *
 * cdktf's `captureStackTrace` (lib/tokens/private/stack-trace.js) then returns no frames: it asks
 * V8 for an unlimited stack only to read back the empty one; while `withoutTokenTraces` runs it
 * returns that empty list at once (4 % of a 100-tenant synth's profile, docs/development.md).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const stackTraces = require('cdktf/lib/tokens/private/stack-trace') as { captureStackTrace: (below?: unknown) => string[] };
const noFrames = (): string[] => [];

export function withoutTokenTraces<T>(body: () => T): T {
  if (process.env.PVEKAAS_TOKEN_TRACES === '1') return body();
  const previous = Error.prepareStackTrace;
  Error.prepareStackTrace = (holder: unknown, frames: NodeJS.CallSite[]) => {
    if (holder instanceof Error) {
      return previous ? previous(holder, frames) : `${String(holder)}${frames.map((f) => `\n    at ${String(f)}`).join('')}`;
    }
    return '';
  };
  const capture = stackTraces.captureStackTrace;
  stackTraces.captureStackTrace = noFrames;
  try {
    return body();
  } finally {
    Error.prepareStackTrace = previous;
    stackTraces.captureStackTrace = capture;
  }
}
