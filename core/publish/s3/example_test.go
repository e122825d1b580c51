package s3_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/agenttools/agenttools/core/publish"
	s3pub "github.com/agenttools/agenttools/core/publish/s3"
)

// A Publisher for an S3-compatible server (MinIO, R2, versitygw, ...):
// credentials and region come from the SDK's usual chain (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_REGION, ~/.aws/config, ...), the endpoint
// and path-style addressing from the client's options. It needs a server,
// so it has no output to check.
func Example() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	client := awss3.NewFromConfig(cfg, func(o *awss3.Options) {
		o.BaseEndpoint = aws.String("http://127.0.0.1:7070") // omit for AWS S3
		o.UsePathStyle = true
	})
	p := s3pub.New(client, s3pub.Options{Bucket: "agent-links", KeyPrefix: "published"})

	// The publish tool builds the File from the call's path; here, a
	// file of our own.
	f := publish.NewFile("/workspace/out/report.txt", func(context.Context) (io.ReadCloser, publish.Info, error) {
		body := "quarterly numbers\n"
		return io.NopCloser(strings.NewReader(body)), publish.Info{Path: "/workspace/out/report.txt", Size: int64(len(body))}, nil
	})
	link, err := p.Publish(ctx, f, publish.Options{ExpiresAfter: time.Hour, Prefix: "agent-session-1"})
	if err != nil {
		log.Fatal(err) // the text the model would see: {"ok":false,"error":...}
	}
	fmt.Println(link) // http://127.0.0.1:7070/agent-links/published/agent-session-1/<id>/workspace/out/report.txt?X-Amz-...
}
