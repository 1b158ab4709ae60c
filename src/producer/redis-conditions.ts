// What the API needs of Redis's behaviour, without reaching the store itself (npm run check:imports):
// the Redis time one request may spend, and how to tell an unavailable Redis from a bug. The producer is
// the API's one way into the store; these are passed on from it unchanged.
export { isRedisUnavailableError, withRedisBudget } from "../store/index.js";
