module example.com/confini

go 1.19
