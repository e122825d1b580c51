// Package s3 publishes workspace files to an S3-compatible bucket (AWS
// S3, MinIO, Cloudflare R2, versitygw, ...) and links them with presigned
// GET URLs, through aws-sdk-go-v2's S3 client and presigner.
//
// Each Publish uploads the file's bytes as they are at publish time under
// a key of its own, so a link keeps serving what was published even when
// the same path is published again with other content; the bucket's
// lifecycle rules, not this package, delete old objects. A link stops
// working when its presigned signature expires: S3 allows 1 second to 7
// days.
//
// It must not import the tools (package core) or any adapter: the
// publish tool calls it through publish.Publisher.
package s3

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"path"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/publish"
	"github.com/agenttools/agenttools/toolspec"
)

// The bounds S3 puts on a presigned URL's lifetime (SigV4's
// X-Amz-Expires): from one second to seven days.
const (
	MinExpiry = time.Second
	MaxExpiry = 7 * 24 * time.Hour
)

// Options configure a Publisher.
type Options struct {
	// Bucket is the bucket the files are uploaded to. It must exist:
	// a Publisher creates nothing but objects.
	Bucket string
	// KeyPrefix, when set, comes first in every object key (without a
	// trailing slash: "published" gives "published/...").
	KeyPrefix string
	// Presign are options for s3.NewPresignClient, such as a Presigner
	// of one's own or ClientOptions that only the presigned URLs use.
	Presign []func(*awss3.PresignOptions)
}

// Publisher uploads workspace files to a bucket and answers presigned
// GET URLs. It is safe for concurrent use.
type Publisher struct {
	client  *awss3.Client
	presign *awss3.PresignClient
	opts    Options
}

var _ publish.Publisher = (*Publisher)(nil)

// New returns a Publisher that uploads with client, whose options say
// where the server is and who signs (the SDK's usual credential chain
// through config.LoadDefaultConfig, an endpoint for S3-compatible
// servers, UsePathStyle where the server wants it). Links are presigned
// with the same options.
func New(client *awss3.Client, opts Options) *Publisher {
	opts.KeyPrefix = strings.Trim(opts.KeyPrefix, "/")
	return &Publisher{client: client, presign: awss3.NewPresignClient(client, opts.Presign...), opts: opts}
}

// Publish uploads the file f names and returns a presigned GET URL that
// serves it for opts.ExpiresAfter. S3 counts a link's lifetime in whole
// seconds: a fraction of a second is dropped.
//
// The object's key is "[KeyPrefix/][opts.Prefix/]<id>/<path>": id is 16
// random hex digits, new for every call, so that publishing a path again
// never changes what an earlier link serves; path is the file's resolved
// workspace path without its leading slash, so the URL ends in the
// file's name. The object's Content-Type follows the name's extension
// (mime.TypeByExtension), application/octet-stream when it has none
// known. A type a browser would run scripts in (HTML, XHTML, SVG, XML,
// JavaScript) is stored with Content-Disposition: attachment, so its link
// downloads the file instead of running it on the bucket's origin.
//
// The body is streamed from f.Open with its length, never held in
// memory. A reader that can seek (a host file) is signed with its
// SHA-256, which the SDK reads once before sending; one that cannot is
// sent as an unsigned payload, which the SDK otherwise allows only over
// TLS.
//
// Errors, each an *errno.Error whose text the model sees: EINVAL with
// the spec's publishS3ExpiryRange for a lifetime outside 1 s to 7 days;
// those of f.Open (ENOENT, EISDIR, EACCES, ...); EIO with
// publishS3Failed for an upload or presign the server or the SDK
// refused, giving the server's error code and message (its Err is the
// SDK's error, for errors.As with smithy.APIError). A cancelled ctx is
// returned as ctx.Err().
func (p *Publisher) Publish(ctx context.Context, f publish.File, opts publish.Options) (string, error) {
	expires := opts.ExpiresAfter
	if expires <= 0 {
		expires = publish.DefaultExpiry
	}
	expires = expires.Truncate(time.Second)
	if expires < MinExpiry || expires > MaxExpiry {
		return "", errno.New(errno.EINVAL, toolspec.MsgPublishS3ExpiryRange(opts.Milliseconds(), MinExpiry.Milliseconds(), MaxExpiry.Milliseconds()), f.Path)
	}
	r, info, err := f.Open(ctx)
	if err != nil {
		return "", err
	}
	defer r.Close()
	key := p.key(opts.Prefix, info.Path)
	contentType := mime.TypeByExtension(path.Ext(info.Path))
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	in := &awss3.PutObjectInput{
		Bucket:        aws.String(p.opts.Bucket),
		Key:           aws.String(key),
		Body:          r,
		ContentLength: aws.Int64(info.Size),
		ContentType:   aws.String(contentType),
	}
	if activeContent(contentType) {
		// The page is the model's, served from the bucket's origin, which
		// S3 cannot sandbox (no Content-Security-Policy header): the
		// browser downloads it rather than running its scripts there.
		in.ContentDisposition = aws.String("attachment")
	}
	var optFns []func(*awss3.Options)
	if _, ok := r.(io.Seeker); !ok {
		// Without Seek the SDK can neither hash the body ahead nor, over
		// plain HTTP, add a trailing checksum: it would refuse the upload.
		// The payload goes unsigned, with only the checksums S3 requires.
		// Nor can the SDK rewind it to retry: one attempt, so that a
		// failure is reported in its own words (connection refused, a
		// 503) rather than as "request stream is not seekable".
		optFns = append(optFns, awss3.WithAPIOptions(v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware), func(o *awss3.Options) {
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
			o.RetryMaxAttempts = 1
		})
	}
	if _, err := p.client.PutObject(ctx, in, optFns...); err != nil {
		return "", p.failed(ctx, info.Path, err)
	}
	req, err := p.presign.PresignGetObject(ctx, &awss3.GetObjectInput{Bucket: aws.String(p.opts.Bucket), Key: aws.String(key)}, awss3.WithPresignExpires(expires))
	if err != nil {
		return "", p.failed(ctx, info.Path, err)
	}
	return req.URL, nil
}

// key is the object key of a new upload of the workspace file at
// workspacePath (see Publish).
func (p *Publisher) key(prefix, workspacePath string) string {
	var id [8]byte
	rand.Read(id[:])
	parts := make([]string, 0, 4)
	for _, s := range []string{p.opts.KeyPrefix, strings.Trim(prefix, "/"), hex.EncodeToString(id[:]), strings.TrimPrefix(path.Clean("/"+workspacePath), "/")} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "/")
}

// failed words an SDK error for the model: the server's code and message
// when it answered, else the SDK's reason (a connection refused, ...).
// Neither carries credentials: the SDK's errors name the operation, the
// status and the request ids, never the signature or keys.
func (p *Publisher) failed(ctx context.Context, workspacePath string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	reason := err.Error()
	var api smithy.APIError
	if errors.As(err, &api) {
		reason = api.ErrorCode()
		if msg := api.ErrorMessage(); msg != "" {
			reason += ": " + msg
		}
	}
	e := errno.New(errno.EIO, toolspec.MsgPublishS3Failed(workspacePath, p.opts.Bucket, reason), workspacePath)
	e.Err = err
	return e
}

// activeContent reports whether a browser shown a file of this media
// type inline may run scripts in it.
func activeContent(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch mt {
	case "text/html", "application/xhtml+xml", "image/svg+xml", "text/xml", "application/xml",
		"text/javascript", "application/javascript", "application/ecmascript", "text/ecmascript":
		return true
	}
	return false
}
