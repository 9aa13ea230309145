import statistics as st
data = [2.5, 3.1, 4.7, 3.1, 5.0, 2.2, 3.9, 4.4]
print(st.mean(data), st.median(data), st.mode(data))
print(round(st.stdev(data), 4), round(st.pstdev(data), 4), round(st.variance(data), 4))
print(st.median_low([1, 3, 5, 7]), st.median_high([1, 3, 5, 7]), st.fmean([1, 2, 4]))
print(st.quantiles(data, n=4))
try:
    st.mean([])
except st.StatisticsError as e:
    print("StatisticsError:", e)
print(f"{st.mean(data):.3f} ± {st.stdev(data):.3f}")
print(st.multimode("aabbbcc"), st.harmonic_mean([2, 4]))
