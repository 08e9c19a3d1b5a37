/**
 * The one public benchmark whose scores rank an alias's free-tier candidates (docs/routing.md):
 * the Artificial Analysis Intelligence Index. Its versions are not comparable (v4.2 and v4.3
 * rescaled every score), so every plugin's scores come from the same version, read on one day;
 * when a newer full table is read, every score changes at once, never a few.
 *
 * v4.1.1 is the newest version whose whole table could be read on 2026-11-27: the index's own free
 * API (GET https://artificialanalysis.ai/api/v2/data/llms/models) as dumped on 2026-08-21 in
 * https://github.com/yookibooki/llm-benchmarks (data/aa_raw.json, commit 3fa2344). v4.3.2 was live by
 * 2026-09-22, but no complete table of it was found. Where the index scores several configurations of
 * a model (reasoning or not, effort levels), its primary entry is used.
 */
export const QUALITY_BENCHMARK = {
  name: 'Artificial Analysis Intelligence Index',
  version: 'v4.1.1',
  /** The day the scores are of. */
  valuesAsOf: '2026-08-21',
  /** The day they were read. */
  checked: '2026-11-27',
  source: 'https://artificialanalysis.ai/leaderboards/models',
} as const;

/** A model's score on QUALITY_BENCHMARK, and the benchmark's page of that model. */
export interface QualityScore {
  readonly score: number;
  readonly source: string;
}

/** A score of the Intelligence Index, and the index's page of the model (`https://artificialanalysis.ai/models/<slug>`). */
export const intelligenceIndex = (score: number, slug: string): QualityScore => ({ score, source: `https://artificialanalysis.ai/models/${slug}` });

/** How `/v1/models` names a score's source: the benchmark, its version and dates, and the model's page. */
export const qualitySource = (quality: QualityScore): string =>
  `${QUALITY_BENCHMARK.name} ${QUALITY_BENCHMARK.version} (values of ${QUALITY_BENCHMARK.valuesAsOf}, read ${QUALITY_BENCHMARK.checked}): ${quality.source}`;
