import sympy as sp
X = 1
