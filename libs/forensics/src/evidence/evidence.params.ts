/**
 * Parameters of the evidence normalisation: each retriever-side signal (BiRD, GRADA, ProGRank) is
 * mapped to a suspicion in [0, 1] (higher = more suspicious), then combined for the decision
 * policy. These are project choices, not paper values; each is documented where it is used.
 */
export type EvidenceSignal = 'bird' | 'grada' | 'progrank';

/** `birdSuspicion`: u = max(S, 0)/ε, suspicion = u^h/(1 + u^h). */
export interface BirdSuspicionParams {
  /** ε of the BiRD run (`BirdParams.epsilon`): S = ε maps to ½. Default 2.5. Finite, > 0. */
  epsilon: number;
  /** Hill exponent h. Default 2. Finite, > 0. */
  hill: number;
}

/** `gradaSuspicion`: dropWeight·rank drop + (1 − dropWeight)·score deficit. */
export interface GradaSuspicionParams {
  /** d of the GRADA run (`GradaParams.damping`): the teleport floor is (1 − d)/M. Default 0.85. In (0, 1). */
  damping: number;
  /** Weight of the rank-drop term. Default 0.5. In [0, 1]. */
  dropWeight: number;
}

/** `progrankSuspicion`: 1 − exp(−penalty/scale). */
export interface ProgrankSuspicionParams {
  /** λ: penalty λ·ln 2 maps to ½. Default 1. Finite, > 0. */
  scale: number;
}

/** `combineEvidence`. */
export interface CombineEvidenceParams {
  /** Weights of the weighted mean over the signals present. Default 1 each. Finite, ≥ 0 (0 = ignore). */
  weights: Record<EvidenceSignal, number>;
  /** Combined suspicion at or above which the evidence "agrees" the text is poisoned. Default 0.5. In [0, 1]. */
  agreeThreshold: number;
  /** A single signal at or above this is listed in `signals` (it "fired"). Default 0.5. In [0, 1]. */
  signalThreshold: number;
}

export const DEFAULT_BIRD_SUSPICION_PARAMS: Readonly<BirdSuspicionParams> = Object.freeze({ epsilon: 2.5, hill: 2 });
export const DEFAULT_GRADA_SUSPICION_PARAMS: Readonly<GradaSuspicionParams> = Object.freeze({ damping: 0.85, dropWeight: 0.5 });
export const DEFAULT_PROGRANK_SUSPICION_PARAMS: Readonly<ProgrankSuspicionParams> = Object.freeze({ scale: 1 });
export const DEFAULT_COMBINE_EVIDENCE_PARAMS: Readonly<CombineEvidenceParams> = Object.freeze({
  weights: Object.freeze({ bird: 1, grada: 1, progrank: 1 }),
  agreeThreshold: 0.5,
  signalThreshold: 0.5,
});

function check(where: string, name: string, v: unknown, ok: (x: number) => boolean, range: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) throw new RangeError(`${where}.${name} must be ${range}, got ${String(v)}`);
  return v;
}
const positive = (x: number): boolean => x > 0;
const unit = (x: number): boolean => x >= 0 && x <= 1;

export function validateBirdSuspicionParams(p: Partial<BirdSuspicionParams> = {}): BirdSuspicionParams {
  const d = DEFAULT_BIRD_SUSPICION_PARAMS;
  return {
    epsilon: check('BirdSuspicionParams', 'epsilon', p.epsilon ?? d.epsilon, positive, 'a finite number > 0'),
    hill: check('BirdSuspicionParams', 'hill', p.hill ?? d.hill, positive, 'a finite number > 0'),
  };
}

export function validateGradaSuspicionParams(p: Partial<GradaSuspicionParams> = {}): GradaSuspicionParams {
  const d = DEFAULT_GRADA_SUSPICION_PARAMS;
  return {
    damping: check('GradaSuspicionParams', 'damping', p.damping ?? d.damping, (x) => x > 0 && x < 1, 'in (0, 1)'),
    dropWeight: check('GradaSuspicionParams', 'dropWeight', p.dropWeight ?? d.dropWeight, unit, 'in [0, 1]'),
  };
}

export function validateProgrankSuspicionParams(p: Partial<ProgrankSuspicionParams> = {}): ProgrankSuspicionParams {
  return { scale: check('ProgrankSuspicionParams', 'scale', p.scale ?? DEFAULT_PROGRANK_SUSPICION_PARAMS.scale, positive, 'a finite number > 0') };
}

export function validateCombineEvidenceParams(p: Partial<CombineEvidenceParams> = {}): CombineEvidenceParams {
  const d = DEFAULT_COMBINE_EVIDENCE_PARAMS;
  const w = { ...d.weights, ...(p.weights ?? {}) };
  const nonNeg = (x: number): boolean => x >= 0;
  return {
    weights: {
      bird: check('CombineEvidenceParams', 'weights.bird', w.bird, nonNeg, 'a finite number ≥ 0'),
      grada: check('CombineEvidenceParams', 'weights.grada', w.grada, nonNeg, 'a finite number ≥ 0'),
      progrank: check('CombineEvidenceParams', 'weights.progrank', w.progrank, nonNeg, 'a finite number ≥ 0'),
    },
    agreeThreshold: check('CombineEvidenceParams', 'agreeThreshold', p.agreeThreshold ?? d.agreeThreshold, unit, 'in [0, 1]'),
    signalThreshold: check('CombineEvidenceParams', 'signalThreshold', p.signalThreshold ?? d.signalThreshold, unit, 'in [0, 1]'),
  };
}
