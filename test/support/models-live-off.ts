/**
 * Fake upstreams in the tests count and script the calls they receive, which a
 * model listing would take a share of: Freeways the tests start (in this process
 * or as child processes) do not list models unless a test says MODELS_LIVE=on,
 * as test/live-models*.test.ts do.
 */
process.env.MODELS_LIVE ??= 'off';

export const modelsLiveDefault = process.env.MODELS_LIVE;
