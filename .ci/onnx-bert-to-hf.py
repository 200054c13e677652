"""Unpacks a BERT encoder exported to ONNX (as the Maven jars of langchain4j's in-process embedders
ship it: model.onnx + tokenizer.json) into the Hugging Face layout convert-bert-gguf.py reads:
model.safetensors, vocab.txt and config.json. Needs the PyPI packages onnx, safetensors and numpy.

The exporter keeps parameter names for embeddings, norms and biases but stores each linear layer's
weight as an anonymous MatMul initializer, transposed ([in, out]). Each is named here by the graph:
the MatMul's output feeds an Add whose other input is the layer's named bias.

Usage: python3 onnx-bert-to-hf.py MODEL.onnx TOKENIZER.json OUT_DIR HEADS
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper
from safetensors.numpy import save_file

onnx_path, tokenizer_path, out_dir, heads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
graph = onnx.load(onnx_path).graph
inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
consumers = {}
for node in graph.node:
    for name in node.input:
        consumers.setdefault(name, []).append(node)

tensors = {k: v for k, v in inits.items() if not k.startswith("onnx::")}
for node in graph.node:
    if node.op_type != "MatMul" or node.input[1] not in inits:
        continue
    biases = [
        i
        for add in consumers.get(node.output[0], [])
        if add.op_type == "Add"
        for i in add.input
        if i in inits and i.endswith(".bias")
    ]
    if len(biases) != 1:
        sys.exit(f"onnx-bert-to-hf: cannot name MatMul weight {node.input[1]} (biases {biases})")
    # ONNX keeps x @ W with W as [in, out]; a linear layer's weight is [out, in].
    tensors[biases[0].removesuffix(".bias") + ".weight"] = np.ascontiguousarray(inits[node.input[1]].T)
left = [k for k in tensors if k.startswith("onnx::")]
if left:
    sys.exit(f"onnx-bert-to-hf: unnamed initializers left: {left[:5]}")

layers = 1 + max(int(k.split(".")[2]) for k in tensors if k.startswith("encoder.layer."))
word = tensors["embeddings.word_embeddings.weight"]
with open(tokenizer_path, encoding="utf-8") as f:
    tok = json.load(f)
if tok["model"]["type"] != "WordPiece":
    sys.exit(f"onnx-bert-to-hf: tokenizer {tok['model']['type']} is not WordPiece")
vocab = sorted(tok["model"]["vocab"].items(), key=lambda kv: kv[1])
if [i for _, i in vocab] != list(range(len(vocab))) or len(vocab) != word.shape[0]:
    sys.exit("onnx-bert-to-hf: the vocabulary does not match the word embeddings")

os.makedirs(out_dir, exist_ok=True)
save_file({k: v.astype(np.float32) for k, v in tensors.items()}, os.path.join(out_dir, "model.safetensors"))
with open(os.path.join(out_dir, "vocab.txt"), "w", encoding="utf-8") as f:
    f.writelines(t + "\n" for t, _ in vocab)
config = {
    "model_type": "bert",
    "hidden_size": int(word.shape[1]),
    "intermediate_size": int(tensors["encoder.layer.0.intermediate.dense.weight"].shape[0]),
    "num_hidden_layers": layers,
    "num_attention_heads": heads,
    "max_position_embeddings": int(tensors["embeddings.position_embeddings.weight"].shape[0]),
    "type_vocab_size": int(tensors["embeddings.token_type_embeddings.weight"].shape[0]),
    "layer_norm_eps": 1e-12,
}
with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
    json.dump(config, f, indent=2)
