/**
 * Routing's front door: what the layers above (http/, api/ and the composition
 * root) use of it. A request is planned (`Router.plan`), run as an AI SDK language
 * model (`routedModel`, whose parts are the routed stream vocabulary of
 * stream-parts.ts) or as a whole call (`Router.call`), under the failover policy of
 * failover.ts. Nothing above imports a routing module but this one
 * (test/ops/layers.test.ts).
 */
export type { Attempt, AttemptControl, AttemptLog } from './attempt.ts';
export { estimateInputTokens } from './estimate.ts';
export { conversationOf, type Conversation } from './conversation.ts';
export { CallerGone, failoverTable, type PolicyRow, type StepKind } from './failover.ts';
export { HEALTH_TIMINGS, healthPolicy, viewHealth, type HealthView } from './health-policy.ts';
export { createUpstreamFetch } from './http-client.ts';
export { createLatencyTracker, type LatencyTracker } from './latency.ts';
export { createWaitQueue, type WaitQueue } from './wait-queue.ts';
export type { Candidate, Plan } from './plan.ts';
export { routedModel, StreamFailed, type RoutedModel, type RoutedParts, type RoutedPartsResult, type RoutedRequest, type RoutedStreamResult } from './routed-model.ts';
export { createRouter, type AttemptFn, type Router, type RouterDeps, type WholeCallRequest } from './router.ts';
export type { PlanRequest } from './planner.ts';
export type { RoutedContent, RoutedContentPart, RoutedFinish, RoutedPart, ToolCallEnd, ToolCallStart } from './stream-parts.ts';
export { answerCollector, beginCall, cachedModels, createModelSource, type AnswerCollector, type CallOptions, type Collected, type ModelSource } from './upstream.ts';
export { classifyFailure, type Failure, type FailureKind } from './upstream-errors.ts';
