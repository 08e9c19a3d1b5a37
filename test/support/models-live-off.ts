/**
 * Fake upstreams in the tests count and script the calls they receive, which a
 * model listing would take a share of, and tests play "model not found" answers
 * to one key again and again: Freeways the tests start (in this process or as
 * child processes) neither list models nor quarantine them unless a test says so
 * (MODELS_LIVE=on, MODEL_QUARANTINE_MS), as test/routing/live-models*.test.ts do.
 */
process.env.MODELS_LIVE ??= 'off';
process.env.MODEL_QUARANTINE_MS ??= '0';

export const modelsLiveDefault = process.env.MODELS_LIVE;
export const quarantineDefault = process.env.MODEL_QUARANTINE_MS;
