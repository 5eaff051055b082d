"""Training presets (``*.yaml``), installed as the package ``kardinal_configs``.

From a checkout they are ``configs/NAME.yaml``; from an installed wheel read one with
``importlib.resources.files("kardinal_configs").joinpath("default.yaml").read_text()``.
"""
