def load():
    return [("x", 3), ("y", 1), ("z", 2)]
def main():
    data = load()
    data.sort(key=lambda t: t[1])
    for name, v in data:
        print(f"{name}={v}")
    return len(data)
if __name__ == "__main__":
    n = main()
    print("processed", n)
