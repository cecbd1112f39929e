import sympy as sp
x = = 1
