Bvector_normJ¯ˆ
AšA