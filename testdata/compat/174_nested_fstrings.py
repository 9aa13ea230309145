stats = {"mean": 12.3456, "max": 99, "label": "latency"}
width = 10
print(f"{stats['label']:>{width}}: {stats['mean']:.{2}f}")
print(f"{'nested ' + str(stats['max']):^20}|")
items = ["a", "b", "c"]
print(f"items: {', '.join(f'<{x}>' for x in items)}")
print(f"{len(items)=}, {stats['max'] / 7:.3f}")
value = 1234567.891
print(f"{value:,.2f} {value:>15,.1f} {int(value):_d} {0.4567:.1%}")
name = "report"
print(f"{name!r:>12} {name.upper()!s} {{literal}}")
print(f"{'yes' if stats['max'] > 50 else 'no'}")
print(f"{3.0:g} {1e-7:g} {255:#x} {255:08b} {42:+}")
