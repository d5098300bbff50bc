import { MemoryRateLimiter } from './memory-rate-limiter.js';
import { describeRateLimiterContract } from './rate-limiter.contract.js';

describeRateLimiterContract('MemoryRateLimiter', async (clock) => {
  const limiter = new MemoryRateLimiter(clock);
  return { limiter, close: () => limiter.close() };
});
