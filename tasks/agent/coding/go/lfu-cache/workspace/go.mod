module lfu

go 1.19
