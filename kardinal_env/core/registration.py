"""Registration of the environments with PettingZoo's and Gymnasium's registries.

=====================================  =====================================================
id                                     entry point
=====================================  =====================================================
``kardinal/kardinal-v0`` (PettingZoo)  ``kardinal_env.kardinal.env:env`` —
                                       ``pettingzoo.make("aec", "kardinal/kardinal-v0")``
``kardinal/KardinalVsBots-v0`` (Gym)   ``kardinal_env.core.single_agent:KardinalVsBots`` —
                                       ``gymnasium.make("kardinal/KardinalVsBots-v0")``
``kardinal/kardinal-koenig-v0``        ``kardinal_env.koenig.env:env``
``kardinal/KardinalKoenigVsBots-v0``   ``kardinal_env.core.single_agent:KardinalKoenigVsBots``
=====================================  =====================================================

``import kardinal_env`` calls :func:`register` when gymnasium and pettingzoo are installed; the
engine itself (``kardinal_env.kardinal.engine``, ``rules``, ``record``) needs neither. Calling it again is a
no-op.
"""

from __future__ import annotations

__all__ = ["register", "PETTINGZOO_IDS", "GYMNASIUM_IDS"]

PETTINGZOO_IDS = {
    "kardinal/kardinal-v0": "kardinal_env.kardinal.env:env",
    "kardinal/kardinal-koenig-v0": "kardinal_env.koenig.env:env",
}
GYMNASIUM_IDS = {
    "kardinal/KardinalVsBots-v0": "kardinal_env.core.single_agent:KardinalVsBots",
    "kardinal/KardinalKoenigVsBots-v0": "kardinal_env.core.single_agent:KardinalKoenigVsBots",
}


def register() -> None:
    """Register every id above (idempotent). Raises ImportError without gymnasium/pettingzoo."""
    import gymnasium
    import pettingzoo

    for env_id, entry_point in PETTINGZOO_IDS.items():
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=entry_point)
    for env_id, entry_point in GYMNASIUM_IDS.items():
        if env_id not in gymnasium.registry:
            # No OrderEnforcing / passive checker: they hide action_masks() (sb3-contrib calls it on
            # the env), and the env checks the call order itself.
            gymnasium.register(id=env_id, entry_point=entry_point, order_enforce=False, disable_env_checker=True)
