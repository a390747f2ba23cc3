package linguist

//go:generate go run ./internal/gen -o data_gen.go
