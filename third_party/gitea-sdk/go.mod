module code.gitea.io/sdk/gitea

go 1.26

require (
	github.com/42wim/httpsig v1.2.4
	github.com/davidmz/go-pageant v1.0.2
	github.com/go-fed/httpsig v1.1.0
	github.com/hashicorp/go-version v1.9.0
	github.com/stretchr/testify v1.11.1
	golang.org/x/crypto v0.50.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	golang.org/x/sys v0.43.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
