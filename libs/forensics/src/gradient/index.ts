export { pooledNormalizedInput, affineEmbedding, cosine, similarityGradient } from './layernorm-gradient';
export type { PooledNormalizedInput, AffineEmbedding } from './layernorm-gradient';
export { tailForward64, tailVjp64, similarityGradient64, similarity64 } from './use-lite-tail';
export type { UseLiteTailParams, LayerNormInput, TailForward, LayerNormOverride } from './use-lite-tail';
