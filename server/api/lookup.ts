import { kindOf, wrongKind, type Alias, type Catalog, type CatalogModel } from '../../catalog/catalog.ts';
import { didYouMean } from '../../catalog/suggest.ts';
import type { ModelKind } from '../../providers/types.ts';
import { clip, freewayError, type HttpError } from '../core/errors.ts';

/** A model a request names, as a route looks it up. */
export interface ModelLookup {
  readonly catalog: Catalog;
  /** The catalog id or alias, after any model map. */
  readonly target: string;
  /** The kind of model the route serves. */
  readonly kind: ModelKind;
  /** A pinned model the plugin does not know, found in a live list of the request's keys; absent: the catalog only. */
  readonly findLive?: (target: string) => Promise<CatalogModel | undefined>;
}

/*
 * Names of OpenAI's and Anthropic's own models, which apps built for them send: `gpt-4o`,
 * `o3-mini`, `chatgpt-4o-latest`, `text-embedding-3-small`, `whisper-1`, `claude-sonnet-4-6`.
 * Open-weight models named alike (`gpt-oss-120b`, `whisper-large-v3`) are in the catalog.
 */
const openAINames = /^(?:openai\/)?(?:gpt-(?!oss)|chatgpt-|o[1-9](?:-|$)|text-embedding-|whisper-1$|davinci|babbage|codex-)/i;
const anthropicNames = /^(?:anthropic\/)?claude-/i;

/** What to send instead, per kind of route: aliases serve every kind. */
const aliasFor: Readonly<Record<ModelKind, string>> = { chat: '`free:auto`', embedding: '`free:embed`', transcription: '`free:transcribe`' };

/** The FREEWAY_UNMAPPED_MODEL error for an OpenAI or Anthropic model name, which says how to use it; undefined for any other name. */
function unmappedModel(target: string, kind: ModelKind): HttpError | undefined {
  const vendor = anthropicNames.test(target) ? 'Anthropic' : openAINames.test(target) ? 'OpenAI' : undefined;
  if (vendor === undefined) return undefined;
  const model = clip(target);
  if (kind !== 'chat') return freewayError('FREEWAY_UNMAPPED_MODEL', { model, vendor, alias: aliasFor[kind], mapping: '' });
  // Only the chat routes read MODEL_MAP; /v1/messages reads ANTHROPIC_MODEL_MAP first (which maps `claude-*` unless changed).
  const alias = vendor === 'Anthropic' ? '`free:tool-use`' : aliasFor.chat;
  const example = `MODEL_MAP=${model}=${alias.slice(1, -1)}`;
  const mapping = `, or map the name on this Freeway with MODEL_MAP (${example})${vendor === 'Anthropic' ? ', or on /v1/messages with ANTHROPIC_MODEL_MAP' : ''}`;
  return freewayError('FREEWAY_UNMAPPED_MODEL', { model, vendor, alias, mapping });
}

/** The 404 of a model nothing has: how to use an OpenAI or Anthropic name, else a "did you mean". */
function unknownModel(catalog: Catalog, target: string, kind: ModelKind): HttpError {
  const suggestion = didYouMean(catalog, target);
  if (suggestion === '') return unmappedModel(target, kind) ?? freewayError('FREEWAY_UNKNOWN_MODEL', { model: clip(target), suggestion });
  return freewayError('FREEWAY_UNKNOWN_MODEL', { model: clip(target), suggestion });
}

/**
 * The catalog entry a request names, for every route alike: a 404 with a "did you
 * mean" when nothing has that id, a 400 naming the right route when it is of another kind.
 */
export async function lookUpModel({ catalog, target, kind, findLive }: ModelLookup): Promise<Alias | CatalogModel> {
  const entry = catalog.byId.get(target) ?? (await findLive?.(target));
  if (!entry) throw unknownModel(catalog, target, kind);
  const actual = kindOf(entry);
  if (actual !== kind) throw freewayError('FREEWAY_WRONG_MODEL_KIND', wrongKind(entry.id, actual, kind));
  return entry;
}
