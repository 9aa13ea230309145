xs = ["a", "b", "a", "c", "a"]
print(xs.index("a"), xs.index("a", 1), xs.index("a", 3))
positions = [i for i, x in enumerate(xs) if x == "a"]
print(positions)
s = "abcabcabc"
print(s.index("c"), s.index("c", 3), s.find("c", 6), s.rfind("a"), s.count("abc"))
print(s.startswith("bc", 1), s.endswith("ab", 0, 2))
nums = [10, 20, 30]
nums.insert(0, 5)
nums.insert(100, 99)
print(nums, nums.pop(1), nums)
print(nums[-1], nums[-2:], nums[:-1])
