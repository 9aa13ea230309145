config = {"host": "localhost", "port": 5432}
print("host:", config["host"])
print("user:", config["user"])
