import express, { type Router } from 'express';
import { PolicySet } from '../../policy/index.js';
import type { Gateway } from '../service/index.js';

/** `GET /v1/policies`: the policies of the served commit (its version), and the policy files that cannot be read. */
export function policyRouter(gateway: Gateway): Router {
  const router = express.Router();
  router.get('/v1/policies', (_request, response) => {
    const { index } = gateway.registry;
    const set = PolicySet.of(index);
    response.json({ commit: index.commit, policies: index.policies ?? [], broken: set.broken, ...(set.brokenReason ? { refusing: set.brokenReason } : {}) });
  });
  return router;
}
