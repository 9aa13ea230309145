from dataclasses import dataclass, field
@dataclass(order=True)
class Task:
    priority: int
    name: str = field(compare=False)
    tags: list = field(default_factory=list, compare=False, repr=False)
    def __post_init__(self):
        if self.priority < 0:
            raise ValueError(f"negative priority for {self.name}")
        self.name = self.name.strip().title()
tasks = [Task(3, " write report "), Task(1, "email boss"), Task(2, "fix bug", ["urgent"])]
print(sorted(tasks))
print(min(tasks).name, max(tasks), tasks[2].tags)
try:
    Task(-1, "bad")
except ValueError as e:
    print("ValueError:", e)
print(Task(1, "x") == Task(1, "y"), Task(1, "x") < Task(2, "a"))
