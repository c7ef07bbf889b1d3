module rangeset

go 1.19
