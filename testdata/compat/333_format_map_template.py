rec = {"name": "Widget", "qty": 3, "unit": 4.5}
print("{name}: {qty} x {unit:.2f} = {total:.2f}".format(total=rec["qty"] * rec["unit"], **rec))
print("{name!r:>12}|{qty:^5}|".format(**rec))
print("%s costs %.1f (%d units, %5.1f%%)" % (rec["name"], rec["unit"], rec["qty"], 12.345))
print("%(name)s/%(qty)03d" % rec)
class Default(dict):
    def __missing__(self, key):
        return "{" + key + "}"
print("{name} has {colour}".format_map(Default(rec)))
width = 10
print(f"{'x':>{width}}|{3.14159:.{3}f}|{rec['name']:.3}")
print(f"{rec=}" if False else f"rec has {len(rec)} keys")
print("{0[name]} {0[qty]}".format(rec), "{:,}".format(1234567), "{:>6.1%}".format(0.256))
