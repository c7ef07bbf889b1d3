module example.com/jobqueue

go 1.19
