/**
 * How a shared store (Redis, the cluster primary) falls back to this process's memory:
 * each call goes to `shared`, and to `local` when `shared` throws, after `fallBack`
 * has warned. What is learnt meanwhile stays local.
 */
export function fallingBack<S>(shared: S, local: S, fallBack: (error: unknown) => void): <T>(call: (store: S) => Promise<T>) => Promise<T> {
  return async (call) => {
    try {
      return await call(shared);
    } catch (error) {
      fallBack(error);
      return call(local);
    }
  };
}
