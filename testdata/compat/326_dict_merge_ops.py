defaults = {"model": "gpt-4o", "temperature": 0.0, "max_tokens": 512, "stop": None}
user = {"temperature": 0.7, "max_tokens": 1024}
cfg = {**defaults, **user}
print(cfg)
print(defaults | user == cfg, defaults | {"extra": 1})
d = dict(defaults)
d |= {"model": "small"}
print(d["model"], defaults["model"])
print({k: v for k, v in cfg.items() if v is not None})
print(sorted(cfg, key=lambda k: str(cfg[k])))
print(cfg.get("missing", "n/a"), cfg.setdefault("seed", 42), cfg["seed"])
print(list(cfg.keys() - {"stop", "seed"}) and sorted(cfg.keys() - {"stop", "seed"}))
print(dict.fromkeys(["a", "b"], 0), dict(a=1, b=2).items() == {("a", 1), ("b", 2)})
first_key = next(iter(cfg))
print(first_key, cfg.pop("stop"), "stop" in cfg, len(cfg))
