/**
 * Moved to scripts/lib/lab-run.ts (harness code lives with the scripts; sim/ is the simulator
 * alone). This re-export keeps the importers that were being edited when it moved
 * (test/delivery/delivery.test.ts, test/delivery/deploy.test.ts) compiling; delete it once they
 * import '../../scripts/lib/lab-run' (eslint.config.mjs exempts this file only until then).
 */
export * from '../scripts/lib/lab-run';
