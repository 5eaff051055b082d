"""An agent that plays a Ray RLlib checkpoint (``scripts/train_rllib.py``, ``kardinal_env.integrations.rllib``).

``RLlibAgent.from_checkpoint(path, module_id="main")`` restores only the RLModule of an Algorithm, a MultiRLModule or an
RLModule directory. ``select_move(game)`` builds the seat's observation and mask as the environment would and plays the
largest logit (``greedy``) or a seeded sample; a module whose weights depend on the observation's shape refuses another
(``ValueError``), a fully convolutional one (``spatial_head``) plays any. Needs ``pip install "kardinal-env[rllib]"``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from agents.base import BaseAgent
from kardinal_env.integrations.common import GameFeaturizer

__all__ = ["RLlibAgent"]


def _module_dir(path: Path, module_id: str) -> Path:
    """The directory of one RLModule inside an Algorithm / learner / MultiRLModule checkpoint."""
    candidates = [
        path / "learner_group" / "learner" / "rl_module" / module_id,
        path / "learner" / "rl_module" / module_id,
        path / "rl_module" / module_id,
        path / module_id,
        path,
    ]
    for c in candidates:
        if (c / "class_and_ctor_args.pkl").exists() and any((c / f"module_state.{x}").exists() for x in ("pkl", "pt")):
            return c
    raise FileNotFoundError(
        f"no RLModule {module_id!r} found under {path} (looked for an Algorithm checkpoint's "
        "learner_group/learner/rl_module/<id>/ or an RLModule directory)"
    )


class RLlibAgent(BaseAgent):
    def __init__(self, module, name: str | None = None, greedy: bool = True, seed: int | None = None):
        super().__init__(seed)
        self.module = module
        self.module.eval()
        space = module.observation_space
        board_space = space["observation"] if "observation" in space.spaces else space["observations"]
        self.obs_shape = tuple(int(n) for n in board_space.shape)  # the training observation's shape
        self.any_window = bool(getattr(module, "spatial_head", False))  # fully convolutional: any shape
        self.featurizer = GameFeaturizer()
        self.greedy = bool(greedy)
        self.name = name or "rllib"

    @classmethod
    def from_checkpoint(
        cls,
        path: str | os.PathLike,
        module_id: str = "main",
        name: str | None = None,
        greedy: bool = True,
        seed: int | None = None,
    ) -> RLlibAgent:
        from ray.rllib.core.rl_module.rl_module import RLModule

        # The module classes must be importable when the checkpoint is unpickled.
        import kardinal_env.integrations.rllib  # noqa: F401

        directory = _module_dir(Path(path).expanduser().resolve(), module_id)
        module = RLModule.from_checkpoint(str(directory))
        return cls(module, name=name or f"rllib:{path}", greedy=greedy, seed=seed)

    def action_logits(self, game) -> np.ndarray:
        """Masked logits of every action for the seat to move; ``ValueError`` for a shape the module cannot take."""
        import torch

        observation = self.featurizer.observation(game)
        if not self.any_window and tuple(observation.shape) != self.obs_shape:
            raise ValueError(
                f"{self.name}: this module was trained on observations of shape {self.obs_shape} and cannot play "
                f"games whose observation has shape {tuple(observation.shape)} (Kardinal: another window; use "
                f"the rules it was trained with, e.g. Rules(window={self.obs_shape[-1]}))"
            )
        mask = np.zeros(game.num_actions, dtype=np.int8)
        mask[np.asarray(game.legal_actions(), dtype=np.intp)] = 1
        obs = {"observation": torch.from_numpy(observation)[None], "action_mask": torch.from_numpy(mask)[None]}
        with torch.no_grad():
            out = self.module.forward_inference({"obs": obs})
        return out["action_dist_inputs"][0].float().cpu().numpy()

    def select_move(self, game) -> str:
        if game.is_over:
            raise ValueError("no legal move: the game is over")
        legal = np.asarray(game.legal_actions(), dtype=np.intp)
        logits = self.action_logits(game)[legal].astype(np.float64)
        if self.greedy:
            choice = int(np.argmax(logits))
        else:
            p = np.exp(logits - logits.max())
            p /= p.sum()
            choice = int(np.searchsorted(np.cumsum(p), self.rng.random() * p.sum()))
            choice = min(choice, len(legal) - 1)
        return game.action_to_string(int(legal[choice]))
