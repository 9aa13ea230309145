module github.com/rlmhq/rlm

go 1.26.0

require (
	github.com/dlclark/regexp2/v2 v2.5.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/sashabaranov/go-openai v1.43.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	github.com/tiktoken-go/tokenizer v0.10.0 // indirect
	go.starlark.net v0.0.0-20260908191801-89a6a09411d5 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/time v0.16.0 // indirect
)
