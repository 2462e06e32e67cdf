# The float64 transforms of uniforms made bit-identical by helper det64 (float64 parameter
# arrays select the float64 draw): run each with $K (the kupfer binary) into $D on two machines
# and compare the files' bytes. The last line needs KUPFER_RANDEXP=log (the default float64
# exponential is the ziggurat, deterministic already).
$K eval -o $D/uniform64.npy "np.random.default_rng(7).uniform(np.array([-3.0]), np.array([5.0]), 4096)"
$K eval -o $D/laplace64.npy "np.random.default_rng(7).laplace(np.array([1.0]), np.array([2.0]), 4096)"
$K eval -o $D/logistic64.npy "np.random.default_rng(7).logistic(np.array([1.0]), np.array([2.0]), 4096)"
$K eval -o $D/gumbel64.npy "np.random.default_rng(7).gumbel(np.array([1.0]), np.array([2.0]), 4096)"
$K eval -o $D/weibull64.npy "np.random.default_rng(7).weibull(np.array([0.7]), 4096)"
$K eval -o $D/pareto64.npy "np.random.default_rng(7).pareto(np.array([2.5]), 4096)"
$K eval -o $D/power64.npy "np.random.default_rng(7).power(np.array([3.0]), 4096)"
$K eval -o $D/rayleigh64.npy "np.random.default_rng(7).rayleigh(np.array([2.0]), 4096)"
$K eval -o $D/triangular64.npy "np.random.default_rng(7).triangular(np.array([-5.0]), np.array([2.0]), np.array([10.0]), 4096)"
$K eval -o $D/geometric64.npy "np.random.default_rng(7).geometric(np.array([0.05]), 4096)"
$K eval -o $D/logseries64.npy "np.random.default_rng(7).logseries(np.array([0.9]), 4096)"
KUPFER_RANDEXP=log $K eval -o $D/standard_exponential_log64.npy "np.random.default_rng(7).standard_exponential(4096, dtype=np.float64)"
