import type { Catalog } from '../../catalog/catalog.ts';
import type { FetchFunction } from '../../providers/types.ts';
import type { Config } from '../config/index.ts';
import type { HealthStore } from '../state/health-records.ts';
import type { KnowledgeStore } from '../state/knowledge.ts';
import { createLiveLists, type LiveLists, type LiveList } from './live-lists.ts';
import { createQuarantines, type Quarantines } from './quarantine.ts';
import { createViews, type KeyView } from './views.ts';
import type { ProviderPlugin } from '../../providers/types.ts';

/** What Freeway knows, and learns, of the models each key can use (docs/models.md). */
export interface ModelKnowledge {
  readonly lists: LiveLists;
  readonly quarantines: Quarantines;
  /** What a key's live list means for routing, made once per list. */
  readonly view: (provider: ProviderPlugin, list: LiveList) => KeyView;
  /** NO_CREDIT_WAIT_MS. */
  readonly noCreditWaitMs: number;
  /** Called for every model quarantined: for the metrics. */
  readonly quarantined?: (provider: string, scope: 'key' | 'provider') => void;
  close(): void;
}

export interface ModelKnowledgeDeps {
  readonly config: Pick<Config, 'models' | 'providers'>;
  readonly catalog: Catalog;
  readonly store: KnowledgeStore;
  readonly health: HealthStore;
  readonly fetch: FetchFunction;
  readonly now: () => number;
  readonly listed?: (provider: string, outcome: 'ok' | 'failed' | 'invalid_key') => void;
  readonly quarantined?: (provider: string, scope: 'key' | 'provider') => void;
}

export function createModelKnowledge(deps: ModelKnowledgeDeps): ModelKnowledge {
  const { config, store, now } = deps;
  const lists = createLiveLists({ config: config.models, baseURLs: config.providers.baseURLs, store, health: deps.health, fetch: deps.fetch, now, listed: deps.listed });
  return {
    lists,
    quarantines: createQuarantines(store, config.models.quarantineMs, now),
    view: createViews(deps.catalog),
    noCreditWaitMs: config.models.noCreditWaitMs,
    quarantined: deps.quarantined,
    close: () => lists.close(),
  };
}
