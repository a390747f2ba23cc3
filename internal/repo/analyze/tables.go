package analyze

import "github.com/kontext-dev/kontext/internal/lazyregexp"

// This file is data: the signal, name, layering, entry-point, test-runner
// and toolchain tables the detectors read. The weights and thresholds are
// the original's (originals.md §2.4); the package lists extend its npm-only
// tables to Go, Python, Rust and the JVM. TestTables checks them.

// Signals, by name.
const (
	sigDBAccess      = "dbAccess"
	sigExternalSDK   = "externalSdk"
	sigHTTPClient    = "httpClient"
	sigHTTPRoute     = "httpRoute"
	sigHTTPFramework = "httpFramework"
	sigGraphQL       = "graphql"
	sigQueue         = "queue"
	sigEventEmitter  = "eventEmitter"
	sigWorker        = "worker"
	sigSchedule      = "schedule"
	sigUIFramework   = "uiFramework"
	sigJSX           = "jsx"
	sigBrowserAPI    = "browserApi"
	sigCLIFramework  = "cliFramework"
	sigConfigLibrary = "configLibrary"
	sigEnvAccess     = "envAccess"
	sigLogging       = "logging"
	sigCustomError   = "customError"
	sigTestFramework = "testFramework"
	sigValidation    = "validation"
)

// signalDef says what role a signal suggests and how strongly.
type signalDef struct {
	Signal string
	Role   string
	Weight float64
	Label  string
}

var signalDefs = []signalDef{
	{sigDBAccess, "repository", 0.62, "contains database access"},
	{sigExternalSDK, "adapter", 0.55, "integrates with an external service SDK"},
	{sigHTTPClient, "adapter", 0.5, "performs HTTP calls to other services"},
	{sigHTTPRoute, "controller", 0.6, "registers HTTP route handlers"},
	{sigHTTPFramework, "controller", 0.45, "imports an HTTP framework or binds a network listener"},
	{sigGraphQL, "api-routes", 0.55, "uses a GraphQL server library"},
	{sigQueue, "eventing", 0.55, "publishes or consumes queued messages"},
	{sigEventEmitter, "eventing", 0.45, "emits or subscribes to events"},
	{sigWorker, "worker", 0.55, "runs work on worker threads"},
	{sigSchedule, "worker", 0.45, "schedules recurring work"},
	{sigUIFramework, "ui", 0.55, "imports a UI framework"},
	{sigJSX, "ui", 0.4, "contains JSX"},
	{sigBrowserAPI, "ui", 0.35, "uses browser APIs"},
	{sigCLIFramework, "cli", 0.6, "uses a command-line argument library"},
	{sigConfigLibrary, "configuration", 0.5, "loads configuration through a config library"},
	{sigEnvAccess, "configuration", 0.35, "reads environment variables"},
	{sigLogging, "infrastructure", 0.45, "configures logging"},
	{sigCustomError, "domain", 0.35, "declares its own error types"},
	{sigTestFramework, "test-support", 0.5, "imports a test framework outside test files"},
	{sigValidation, "shared", 0.35, "declares validation schemas"},
}

// Importance of a package, for the INF-DEP decisions.
const (
	impFramework      = "framework"
	impInfrastructure = "infrastructure"
)

// pkgRule maps an imported package to a signal. Match is a package name
// that also covers its sub-packages (a path, dotted or :: boundary); a
// trailing separator ("@nestjs/", "@aws-sdk/") matches a whole scope.
type pkgRule struct {
	Fam        family
	Match      string
	Signal     string
	Importance string
}

var pkgRules = []pkgRule{
	// --- TypeScript / JavaScript (npm and node: builtins) ---
	{famJS, "@prisma/client", sigDBAccess, impInfrastructure},
	{famJS, "prisma", sigDBAccess, impInfrastructure},
	{famJS, "pg", sigDBAccess, impInfrastructure},
	{famJS, "postgres", sigDBAccess, impInfrastructure},
	{famJS, "mysql", sigDBAccess, impInfrastructure},
	{famJS, "mysql2", sigDBAccess, impInfrastructure},
	{famJS, "mongoose", sigDBAccess, impInfrastructure},
	{famJS, "mongodb", sigDBAccess, impInfrastructure},
	{famJS, "typeorm", sigDBAccess, impInfrastructure},
	{famJS, "knex", sigDBAccess, impInfrastructure},
	{famJS, "drizzle-orm", sigDBAccess, impInfrastructure},
	{famJS, "sequelize", sigDBAccess, impInfrastructure},
	{famJS, "better-sqlite3", sigDBAccess, impInfrastructure},
	{famJS, "sqlite3", sigDBAccess, impInfrastructure},
	{famJS, "sqlite", sigDBAccess, ""}, // node:sqlite
	{famJS, "@mikro-orm/", sigDBAccess, impInfrastructure},
	{famJS, "ioredis", sigDBAccess, impInfrastructure},
	{famJS, "redis", sigDBAccess, impInfrastructure},
	{famJS, "express", sigHTTPFramework, impFramework},
	{famJS, "fastify", sigHTTPFramework, impFramework},
	{famJS, "koa", sigHTTPFramework, impFramework},
	{famJS, "hono", sigHTTPFramework, impFramework},
	{famJS, "restify", sigHTTPFramework, impFramework},
	{famJS, "@hapi/hapi", sigHTTPFramework, impFramework},
	{famJS, "@nestjs/", sigHTTPFramework, impFramework},
	{famJS, "react", sigUIFramework, impFramework},
	{famJS, "react-dom", sigUIFramework, impFramework},
	{famJS, "react-native", sigUIFramework, impFramework},
	{famJS, "vue", sigUIFramework, impFramework},
	{famJS, "svelte", sigUIFramework, impFramework},
	{famJS, "next", sigUIFramework, impFramework},
	{famJS, "nuxt", sigUIFramework, impFramework},
	{famJS, "solid-js", sigUIFramework, impFramework},
	{famJS, "preact", sigUIFramework, impFramework},
	{famJS, "lit", sigUIFramework, impFramework},
	{famJS, "@angular/", sigUIFramework, impFramework},
	{famJS, "@remix-run/", sigUIFramework, impFramework},
	{famJS, "axios", sigHTTPClient, ""},
	{famJS, "node-fetch", sigHTTPClient, ""},
	{famJS, "undici", sigHTTPClient, ""},
	{famJS, "got", sigHTTPClient, ""},
	{famJS, "ky", sigHTTPClient, ""},
	{famJS, "superagent", sigHTTPClient, ""},
	{famJS, "graphql", sigGraphQL, impFramework},
	{famJS, "@apollo/", sigGraphQL, impFramework},
	{famJS, "graphql-yoga", sigGraphQL, impFramework},
	{famJS, "type-graphql", sigGraphQL, impFramework},
	{famJS, "mercurius", sigGraphQL, impFramework},
	{famJS, "zod", sigValidation, ""},
	{famJS, "yup", sigValidation, ""},
	{famJS, "joi", sigValidation, ""},
	{famJS, "ajv", sigValidation, ""},
	{famJS, "valibot", sigValidation, ""},
	{famJS, "class-validator", sigValidation, ""},
	{famJS, "stripe", sigExternalSDK, ""},
	{famJS, "twilio", sigExternalSDK, ""},
	{famJS, "@sendgrid/", sigExternalSDK, ""},
	{famJS, "openai", sigExternalSDK, ""},
	{famJS, "@anthropic-ai/", sigExternalSDK, ""},
	{famJS, "@aws-sdk/", sigExternalSDK, impInfrastructure},
	{famJS, "aws-sdk", sigExternalSDK, impInfrastructure},
	{famJS, "@google-cloud/", sigExternalSDK, impInfrastructure},
	{famJS, "firebase-admin", sigExternalSDK, impInfrastructure},
	{famJS, "@slack/", sigExternalSDK, ""},
	{famJS, "bull", sigQueue, impInfrastructure},
	{famJS, "bullmq", sigQueue, impInfrastructure},
	{famJS, "bee-queue", sigQueue, impInfrastructure},
	{famJS, "kafkajs", sigQueue, impInfrastructure},
	{famJS, "amqplib", sigQueue, impInfrastructure},
	{famJS, "nats", sigQueue, impInfrastructure},
	{famJS, "events", sigEventEmitter, ""},
	{famJS, "eventemitter3", sigEventEmitter, ""},
	{famJS, "worker_threads", sigWorker, ""},
	{famJS, "piscina", sigWorker, ""},
	{famJS, "node-cron", sigSchedule, ""},
	{famJS, "cron", sigSchedule, ""},
	{famJS, "node-schedule", sigSchedule, ""},
	{famJS, "agenda", sigSchedule, ""},
	{famJS, "bree", sigSchedule, ""},
	{famJS, "vitest", sigTestFramework, ""},
	{famJS, "jest", sigTestFramework, ""},
	{famJS, "@jest/globals", sigTestFramework, ""},
	{famJS, "mocha", sigTestFramework, ""},
	{famJS, "ava", sigTestFramework, ""},
	{famJS, "chai", sigTestFramework, ""},
	{famJS, "sinon", sigTestFramework, ""},
	{famJS, "supertest", sigTestFramework, ""},
	{famJS, "test", sigTestFramework, ""}, // node:test
	{famJS, "@playwright/test", sigTestFramework, ""},
	{famJS, "cypress", sigTestFramework, ""},
	{famJS, "@testing-library/", sigTestFramework, ""},
	{famJS, "dotenv", sigConfigLibrary, ""},
	{famJS, "convict", sigConfigLibrary, ""},
	{famJS, "config", sigConfigLibrary, ""},
	{famJS, "nconf", sigConfigLibrary, ""},
	{famJS, "@nestjs/config", sigConfigLibrary, ""},
	{famJS, "winston", sigLogging, ""},
	{famJS, "pino", sigLogging, ""},
	{famJS, "log4js", sigLogging, ""},
	{famJS, "bunyan", sigLogging, ""},
	{famJS, "commander", sigCLIFramework, ""},
	{famJS, "yargs", sigCLIFramework, ""},
	{famJS, "cac", sigCLIFramework, ""},
	{famJS, "meow", sigCLIFramework, ""},
	{famJS, "citty", sigCLIFramework, ""},
	{famJS, "clipanion", sigCLIFramework, ""},
	{famJS, "@oclif/", sigCLIFramework, ""},

	// --- Go (module paths; standard library paths are builtin imports) ---
	{famGo, "database/sql", sigDBAccess, ""},
	{famGo, "gorm.io/gorm", sigDBAccess, impInfrastructure},
	{famGo, "github.com/jmoiron/sqlx", sigDBAccess, impInfrastructure},
	{famGo, "github.com/jackc/pgx", sigDBAccess, impInfrastructure},
	{famGo, "github.com/jackc/pgx/v4", sigDBAccess, impInfrastructure},
	{famGo, "github.com/jackc/pgx/v5", sigDBAccess, impInfrastructure},
	{famGo, "github.com/lib/pq", sigDBAccess, impInfrastructure},
	{famGo, "github.com/go-sql-driver/mysql", sigDBAccess, impInfrastructure},
	{famGo, "github.com/mattn/go-sqlite3", sigDBAccess, impInfrastructure},
	{famGo, "modernc.org/sqlite", sigDBAccess, impInfrastructure},
	{famGo, "go.mongodb.org/mongo-driver", sigDBAccess, impInfrastructure},
	{famGo, "github.com/redis/go-redis", sigDBAccess, impInfrastructure},
	{famGo, "github.com/go-redis/redis", sigDBAccess, impInfrastructure},
	{famGo, "entgo.io/ent", sigDBAccess, impInfrastructure},
	{famGo, "github.com/uptrace/bun", sigDBAccess, impInfrastructure},
	{famGo, "go.etcd.io/bbolt", sigDBAccess, impInfrastructure},
	{famGo, "github.com/gin-gonic/gin", sigHTTPFramework, impFramework},
	{famGo, "github.com/labstack/echo", sigHTTPFramework, impFramework},
	{famGo, "github.com/labstack/echo/v4", sigHTTPFramework, impFramework},
	{famGo, "github.com/gofiber/fiber", sigHTTPFramework, impFramework},
	{famGo, "github.com/gofiber/fiber/v2", sigHTTPFramework, impFramework},
	{famGo, "github.com/go-chi/chi", sigHTTPFramework, impFramework},
	{famGo, "github.com/go-chi/chi/v5", sigHTTPFramework, impFramework},
	{famGo, "github.com/gorilla/mux", sigHTTPFramework, impFramework},
	{famGo, "github.com/julienschmidt/httprouter", sigHTTPFramework, impFramework},
	{famGo, "google.golang.org/grpc", sigHTTPFramework, impFramework},
	{famGo, "github.com/99designs/gqlgen", sigGraphQL, impFramework},
	{famGo, "github.com/graph-gophers/graphql-go", sigGraphQL, impFramework},
	{famGo, "github.com/graphql-go/graphql", sigGraphQL, impFramework},
	{famGo, "github.com/go-resty/resty", sigHTTPClient, ""},
	{famGo, "github.com/go-resty/resty/v2", sigHTTPClient, ""},
	{famGo, "github.com/hashicorp/go-retryablehttp", sigHTTPClient, ""},
	{famGo, "github.com/aws/aws-sdk-go", sigExternalSDK, impInfrastructure},
	{famGo, "github.com/aws/aws-sdk-go-v2", sigExternalSDK, impInfrastructure},
	{famGo, "cloud.google.com/go", sigExternalSDK, impInfrastructure},
	{famGo, "github.com/stripe/stripe-go", sigExternalSDK, ""},
	{famGo, "github.com/sashabaranov/go-openai", sigExternalSDK, ""},
	{famGo, "github.com/anthropics/anthropic-sdk-go", sigExternalSDK, ""},
	{famGo, "github.com/slack-go/slack", sigExternalSDK, ""},
	{famGo, "github.com/segmentio/kafka-go", sigQueue, impInfrastructure},
	{famGo, "github.com/Shopify/sarama", sigQueue, impInfrastructure},
	{famGo, "github.com/IBM/sarama", sigQueue, impInfrastructure},
	{famGo, "github.com/confluentinc/confluent-kafka-go", sigQueue, impInfrastructure},
	{famGo, "github.com/rabbitmq/amqp091-go", sigQueue, impInfrastructure},
	{famGo, "github.com/streadway/amqp", sigQueue, impInfrastructure},
	{famGo, "github.com/nats-io/nats.go", sigQueue, impInfrastructure},
	{famGo, "github.com/hibiken/asynq", sigQueue, impInfrastructure},
	{famGo, "github.com/robfig/cron", sigSchedule, ""},
	{famGo, "github.com/robfig/cron/v3", sigSchedule, ""},
	{famGo, "github.com/go-co-op/gocron", sigSchedule, ""},
	{famGo, "fyne.io/fyne", sigUIFramework, impFramework},
	{famGo, "fyne.io/fyne/v2", sigUIFramework, impFramework},
	{famGo, "gioui.org", sigUIFramework, impFramework},
	{famGo, "github.com/charmbracelet/bubbletea", sigUIFramework, impFramework},
	{famGo, "github.com/a-h/templ", sigUIFramework, impFramework},
	{famGo, "github.com/spf13/cobra", sigCLIFramework, impFramework},
	{famGo, "github.com/urfave/cli", sigCLIFramework, impFramework},
	{famGo, "github.com/urfave/cli/v2", sigCLIFramework, impFramework},
	{famGo, "github.com/urfave/cli/v3", sigCLIFramework, impFramework},
	{famGo, "github.com/alecthomas/kong", sigCLIFramework, impFramework},
	{famGo, "flag", sigCLIFramework, ""},
	{famGo, "github.com/spf13/viper", sigConfigLibrary, ""},
	{famGo, "github.com/kelseyhightower/envconfig", sigConfigLibrary, ""},
	{famGo, "github.com/caarlos0/env", sigConfigLibrary, ""},
	{famGo, "github.com/caarlos0/env/v11", sigConfigLibrary, ""},
	{famGo, "github.com/joho/godotenv", sigConfigLibrary, ""},
	{famGo, "go.uber.org/zap", sigLogging, ""},
	{famGo, "github.com/sirupsen/logrus", sigLogging, ""},
	{famGo, "github.com/rs/zerolog", sigLogging, ""},
	{famGo, "testing", sigTestFramework, ""},
	{famGo, "github.com/stretchr/testify", sigTestFramework, ""},
	{famGo, "github.com/onsi/ginkgo", sigTestFramework, ""},
	{famGo, "github.com/onsi/ginkgo/v2", sigTestFramework, ""},
	{famGo, "github.com/onsi/gomega", sigTestFramework, ""},
	{famGo, "github.com/go-playground/validator", sigValidation, ""},
	{famGo, "github.com/go-playground/validator/v10", sigValidation, ""},
	{famGo, "github.com/go-ozzo/ozzo-validation", sigValidation, ""},

	// --- Python (import names) ---
	{famPython, "sqlalchemy", sigDBAccess, impInfrastructure},
	{famPython, "psycopg2", sigDBAccess, impInfrastructure},
	{famPython, "psycopg", sigDBAccess, impInfrastructure},
	{famPython, "asyncpg", sigDBAccess, impInfrastructure},
	{famPython, "pymongo", sigDBAccess, impInfrastructure},
	{famPython, "motor", sigDBAccess, impInfrastructure},
	{famPython, "redis", sigDBAccess, impInfrastructure},
	{famPython, "sqlite3", sigDBAccess, ""},
	{famPython, "peewee", sigDBAccess, impInfrastructure},
	{famPython, "tortoise", sigDBAccess, impInfrastructure},
	{famPython, "django.db", sigDBAccess, ""},
	{famPython, "sqlmodel", sigDBAccess, impInfrastructure},
	{famPython, "flask", sigHTTPFramework, impFramework},
	{famPython, "fastapi", sigHTTPFramework, impFramework},
	{famPython, "django", sigHTTPFramework, impFramework},
	{famPython, "starlette", sigHTTPFramework, impFramework},
	{famPython, "tornado", sigHTTPFramework, impFramework},
	{famPython, "falcon", sigHTTPFramework, impFramework},
	{famPython, "sanic", sigHTTPFramework, impFramework},
	{famPython, "bottle", sigHTTPFramework, impFramework},
	{famPython, "aiohttp.web", sigHTTPFramework, impFramework},
	{famPython, "requests", sigHTTPClient, ""},
	{famPython, "httpx", sigHTTPClient, ""},
	{famPython, "aiohttp", sigHTTPClient, ""},
	{famPython, "urllib3", sigHTTPClient, ""},
	{famPython, "graphene", sigGraphQL, impFramework},
	{famPython, "strawberry", sigGraphQL, impFramework},
	{famPython, "ariadne", sigGraphQL, impFramework},
	{famPython, "boto3", sigExternalSDK, impInfrastructure},
	{famPython, "botocore", sigExternalSDK, impInfrastructure},
	{famPython, "google.cloud", sigExternalSDK, impInfrastructure},
	{famPython, "stripe", sigExternalSDK, ""},
	{famPython, "openai", sigExternalSDK, ""},
	{famPython, "anthropic", sigExternalSDK, ""},
	{famPython, "twilio", sigExternalSDK, ""},
	{famPython, "slack_sdk", sigExternalSDK, ""},
	{famPython, "celery", sigQueue, impInfrastructure},
	{famPython, "kombu", sigQueue, impInfrastructure},
	{famPython, "pika", sigQueue, impInfrastructure},
	{famPython, "kafka", sigQueue, impInfrastructure},
	{famPython, "confluent_kafka", sigQueue, impInfrastructure},
	{famPython, "rq", sigQueue, impInfrastructure},
	{famPython, "dramatiq", sigQueue, impInfrastructure},
	{famPython, "nats", sigQueue, impInfrastructure},
	{famPython, "blinker", sigEventEmitter, ""},
	{famPython, "apscheduler", sigSchedule, ""},
	{famPython, "schedule", sigSchedule, ""},
	{famPython, "tkinter", sigUIFramework, impFramework},
	{famPython, "PyQt5", sigUIFramework, impFramework},
	{famPython, "PyQt6", sigUIFramework, impFramework},
	{famPython, "PySide6", sigUIFramework, impFramework},
	{famPython, "streamlit", sigUIFramework, impFramework},
	{famPython, "kivy", sigUIFramework, impFramework},
	{famPython, "click", sigCLIFramework, impFramework},
	{famPython, "typer", sigCLIFramework, impFramework},
	{famPython, "argparse", sigCLIFramework, ""},
	{famPython, "fire", sigCLIFramework, ""},
	{famPython, "docopt", sigCLIFramework, ""},
	{famPython, "dotenv", sigConfigLibrary, ""},
	{famPython, "pydantic_settings", sigConfigLibrary, ""},
	{famPython, "dynaconf", sigConfigLibrary, ""},
	{famPython, "loguru", sigLogging, ""},
	{famPython, "structlog", sigLogging, ""},
	{famPython, "logging.config", sigLogging, ""},
	{famPython, "pytest", sigTestFramework, ""},
	{famPython, "unittest", sigTestFramework, ""},
	{famPython, "hypothesis", sigTestFramework, ""},
	{famPython, "pydantic", sigValidation, ""},
	{famPython, "marshmallow", sigValidation, ""},
	{famPython, "cerberus", sigValidation, ""},
	{famPython, "jsonschema", sigValidation, ""},

	// --- Rust (crate names as written in paths: underscores) ---
	{famRust, "diesel", sigDBAccess, impInfrastructure},
	{famRust, "sqlx", sigDBAccess, impInfrastructure},
	{famRust, "sea_orm", sigDBAccess, impInfrastructure},
	{famRust, "rusqlite", sigDBAccess, impInfrastructure},
	{famRust, "postgres", sigDBAccess, impInfrastructure},
	{famRust, "tokio_postgres", sigDBAccess, impInfrastructure},
	{famRust, "mongodb", sigDBAccess, impInfrastructure},
	{famRust, "redis", sigDBAccess, impInfrastructure},
	{famRust, "sled", sigDBAccess, impInfrastructure},
	{famRust, "actix_web", sigHTTPFramework, impFramework},
	{famRust, "axum", sigHTTPFramework, impFramework},
	{famRust, "rocket", sigHTTPFramework, impFramework},
	{famRust, "warp", sigHTTPFramework, impFramework},
	{famRust, "tide", sigHTTPFramework, impFramework},
	{famRust, "poem", sigHTTPFramework, impFramework},
	{famRust, "tonic", sigHTTPFramework, impFramework},
	{famRust, "reqwest", sigHTTPClient, ""},
	{famRust, "ureq", sigHTTPClient, ""},
	{famRust, "surf", sigHTTPClient, ""},
	{famRust, "async_graphql", sigGraphQL, impFramework},
	{famRust, "juniper", sigGraphQL, impFramework},
	{famRust, "aws_sdk_", sigExternalSDK, impInfrastructure}, // aws_sdk_s3, aws_sdk_sqs, …
	{famRust, "aws_config", sigExternalSDK, impInfrastructure},
	{famRust, "rusoto_core", sigExternalSDK, impInfrastructure},
	{famRust, "async_openai", sigExternalSDK, ""},
	{famRust, "lapin", sigQueue, impInfrastructure},
	{famRust, "rdkafka", sigQueue, impInfrastructure},
	{famRust, "async_nats", sigQueue, impInfrastructure},
	{famRust, "tokio_cron_scheduler", sigSchedule, ""},
	{famRust, "yew", sigUIFramework, impFramework},
	{famRust, "leptos", sigUIFramework, impFramework},
	{famRust, "dioxus", sigUIFramework, impFramework},
	{famRust, "egui", sigUIFramework, impFramework},
	{famRust, "eframe", sigUIFramework, impFramework},
	{famRust, "iced", sigUIFramework, impFramework},
	{famRust, "tauri", sigUIFramework, impFramework},
	{famRust, "ratatui", sigUIFramework, impFramework},
	{famRust, "clap", sigCLIFramework, impFramework},
	{famRust, "structopt", sigCLIFramework, ""},
	{famRust, "argh", sigCLIFramework, ""},
	{famRust, "config", sigConfigLibrary, ""},
	{famRust, "dotenvy", sigConfigLibrary, ""},
	{famRust, "dotenv", sigConfigLibrary, ""},
	{famRust, "figment", sigConfigLibrary, ""},
	{famRust, "tracing_subscriber", sigLogging, ""},
	{famRust, "env_logger", sigLogging, ""},
	{famRust, "log4rs", sigLogging, ""},
	{famRust, "proptest", sigTestFramework, ""},
	{famRust, "mockall", sigTestFramework, ""},
	{famRust, "rstest", sigTestFramework, ""},
	{famRust, "validator", sigValidation, ""},
	{famRust, "garde", sigValidation, ""},

	// --- Java / Kotlin (package prefixes) ---
	{famJava, "java.sql", sigDBAccess, ""},
	{famJava, "javax.sql", sigDBAccess, ""},
	{famJava, "javax.persistence", sigDBAccess, impInfrastructure},
	{famJava, "jakarta.persistence", sigDBAccess, impInfrastructure},
	{famJava, "org.hibernate", sigDBAccess, impInfrastructure},
	{famJava, "org.springframework.data", sigDBAccess, impInfrastructure},
	{famJava, "org.springframework.jdbc", sigDBAccess, impInfrastructure},
	{famJava, "org.jooq", sigDBAccess, impInfrastructure},
	{famJava, "org.mybatis", sigDBAccess, impInfrastructure},
	{famJava, "org.jetbrains.exposed", sigDBAccess, impInfrastructure},
	{famJava, "org.springframework.web", sigHTTPFramework, impFramework},
	{famJava, "org.springframework.boot", sigHTTPFramework, impFramework},
	{famJava, "javax.ws.rs", sigHTTPFramework, impFramework},
	{famJava, "jakarta.ws.rs", sigHTTPFramework, impFramework},
	{famJava, "io.javalin", sigHTTPFramework, impFramework},
	{famJava, "io.micronaut.http", sigHTTPFramework, impFramework},
	{famJava, "io.quarkus", sigHTTPFramework, impFramework},
	{famJava, "io.ktor.server", sigHTTPFramework, impFramework},
	{famJava, "java.net.http", sigHTTPClient, ""},
	{famJava, "okhttp3", sigHTTPClient, ""},
	{famJava, "org.apache.http", sigHTTPClient, ""},
	{famJava, "org.springframework.web.client", sigHTTPClient, ""},
	{famJava, "io.ktor.client", sigHTTPClient, ""},
	{famJava, "graphql", sigGraphQL, impFramework},
	{famJava, "com.netflix.graphql", sigGraphQL, impFramework},
	{famJava, "com.amazonaws", sigExternalSDK, impInfrastructure},
	{famJava, "software.amazon.awssdk", sigExternalSDK, impInfrastructure},
	{famJava, "com.google.cloud", sigExternalSDK, impInfrastructure},
	{famJava, "com.stripe", sigExternalSDK, ""},
	{famJava, "org.apache.kafka", sigQueue, impInfrastructure},
	{famJava, "org.springframework.kafka", sigQueue, impInfrastructure},
	{famJava, "org.springframework.amqp", sigQueue, impInfrastructure},
	{famJava, "com.rabbitmq", sigQueue, impInfrastructure},
	{famJava, "javax.jms", sigQueue, impInfrastructure},
	{famJava, "jakarta.jms", sigQueue, impInfrastructure},
	{famJava, "org.springframework.context.event", sigEventEmitter, ""},
	{famJava, "org.quartz", sigSchedule, ""},
	{famJava, "javax.swing", sigUIFramework, impFramework},
	{famJava, "javafx", sigUIFramework, impFramework},
	{famJava, "android", sigUIFramework, impFramework},
	{famJava, "androidx", sigUIFramework, impFramework},
	{famJava, "picocli", sigCLIFramework, ""},
	{famJava, "org.apache.commons.cli", sigCLIFramework, ""},
	{famJava, "com.github.ajalt.clikt", sigCLIFramework, ""},
	{famJava, "org.springframework.boot.context.properties", sigConfigLibrary, ""},
	{famJava, "com.typesafe.config", sigConfigLibrary, ""},
	{famJava, "ch.qos.logback", sigLogging, ""},
	{famJava, "org.apache.logging.log4j", sigLogging, ""},
	{famJava, "org.junit", sigTestFramework, ""},
	{famJava, "org.mockito", sigTestFramework, ""},
	{famJava, "org.assertj", sigTestFramework, ""},
	{famJava, "org.testng", sigTestFramework, ""},
	{famJava, "javax.validation", sigValidation, ""},
	{famJava, "jakarta.validation", sigValidation, ""},
}

// contentRule finds a signal in source text. Needle is a literal that
// must occur (a cheap prefilter); Re, when set, must then match the line
// the needle is on. Exts narrows a rule to some extensions. AnyOf, when
// set, lists literals of which Re needs one: a file with none of them is
// skipped without looking at the lines its (too common) Needle is on.
type contentRule struct {
	Fam    family
	Signal string
	Needle string
	Re     *lazyregexp.Regexp
	Detail string
	Exts   []string
	AnyOf  []string
}

// lexedRule is a content rule whose raw match is only a candidate: the
// hit is the first line of the file's code (scan.CodeLines: comments
// gone, string literals reduced to `"/"` or `""`, Python's to `s`) that
// Code matches. The rules that make entry points are lexed, so that a
// route in a docstring or a ticker in a comment is none.
type lexedRule struct {
	contentRule
	Code *lazyregexp.Regexp
}

var contentRules = []contentRule{
	// network listeners
	{famJS, sigHTTPFramework, ".listen(", nil, "binds a network listener", nil, nil},
	{famGo, sigHTTPFramework, "ListenAndServe", nil, "binds an HTTP listener", nil, nil},
	{famJava, sigHTTPFramework, "Controller", lazyregexp.New(`@(Rest)?Controller\b`), "declares a web controller", nil, nil},
	// outgoing HTTP
	{famJS, sigHTTPClient, "fetch(", lazyregexp.New(`\bfetch\(\s*['"` + "`" + `]?https?:|\bfetch\(\s*\w*[uU]rl`), "calls fetch()", nil, nil},
	{famGo, sigHTTPClient, "http.", lazyregexp.New(`\bhttp\.(Get|Post|PostForm|Head|NewRequest|NewRequestWithContext)\(|&http\.Client\{|http\.DefaultClient`), "makes HTTP requests", nil, nil},
	// events
	{famJS, sigEventEmitter, "EventEmitter", nil, "uses EventEmitter", nil, nil},
	{famJS, sigEventEmitter, ".emit(", nil, "emits events", nil, nil},
	// browser and JSX
	{famJS, sigBrowserAPI, "window.", lazyregexp.New(`\bwindow\.\w`), "uses window", nil, nil},
	{famJS, sigBrowserAPI, "document.", lazyregexp.New(`\bdocument\.(getElement|querySelector|createElement|body|addEventListener|cookie|title)`), "uses document", nil, nil},
	{famJS, sigBrowserAPI, "localStorage.", nil, "uses localStorage", nil, nil},
	{famJS, sigJSX, "/>", nil, "contains JSX", []string{".tsx", ".jsx"}, nil},
	{famJS, sigJSX, "</", nil, "contains JSX", []string{".tsx", ".jsx"}, nil},
	// environment
	{famJS, sigEnvAccess, "process.env", nil, "reads process.env", nil, nil},
	{famJS, sigEnvAccess, "import.meta.env", nil, "reads import.meta.env", nil, nil},
	{famGo, sigEnvAccess, "os.Getenv(", nil, "reads os.Getenv", nil, nil},
	{famGo, sigEnvAccess, "os.LookupEnv(", nil, "reads os.LookupEnv", nil, nil},
	{famPython, sigEnvAccess, "os.environ", nil, "reads os.environ", nil, nil},
	{famPython, sigEnvAccess, "os.getenv(", nil, "reads os.getenv", nil, nil},
	{famRust, sigEnvAccess, "env::var", nil, "reads env::var", nil, nil},
	{famJava, sigEnvAccess, "System.getenv(", nil, "reads System.getenv", nil, nil},
	// the language's own error types
	{famJS, sigCustomError, "extends", reJSErrorClass, "declares an error class", nil, nil},
	{famGo, sigCustomError, ") Error() string", reGoErrorType, "declares an error type", nil, nil},
	{famPython, sigCustomError, "class ", rePyErrorClass, "declares an exception class", nil, nil},
	{famJava, sigCustomError, "extends", reJavaErrorClass, "declares an exception class", nil, nil},
	{famRust, sigCustomError, "Error for", reRustErrorImpl, "implements std::error::Error", nil, nil},
	{famRust, sigCustomError, "#[error(", nil, "derives an error type", nil, nil},
}

// lexedRules are the content rules that make entry points (routes,
// workers, schedules), confirmed on the code lines.
var lexedRules = []lexedRule{
	// HTTP route registration
	{contentRule: contentRule{Fam: famJS, Signal: sigHTTPRoute, Needle: ".", Detail: "registers an HTTP route",
		Re:    lazyregexp.New(`\b\w*(?:[aA]pp|[rR]outer|[sS]erver|[aA]pi|[rR]outes?|fastify)\.(get|post|put|patch|delete|all|route)\(\s*['"` + "`" + `]/`),
		AnyOf: []string{".get(", ".post(", ".put(", ".patch(", ".delete(", ".all(", ".route("}}, Code: lazyregexp.New(`\b\w*(?:[aA]pp|[rR]outer|[sS]erver|[aA]pi|[rR]outes?|fastify)\.(get|post|put|patch|delete|all|route)\("/"`)},
	{contentRule: contentRule{Fam: famJS, Signal: sigHTTPRoute, Needle: "@", Detail: "declares a route handler decorator",
		Re: lazyregexp.New(`@(Get|Post|Put|Patch|Delete|All)\(`)}, Code: lazyregexp.New(`@(Get|Post|Put|Patch|Delete|All)\(`)},
	{contentRule: contentRule{Fam: famGo, Signal: sigHTTPRoute, Needle: "(\"/", Detail: "registers an HTTP route",
		Re: lazyregexp.New(`\.(HandleFunc|Handle|GET|POST|PUT|PATCH|DELETE|Get|Post|Put|Patch|Delete|Group|Route)\(\s*"/`)}, Code: lazyregexp.New(`\.(HandleFunc|Handle|GET|POST|PUT|PATCH|DELETE|Get|Post|Put|Patch|Delete|Group|Route)\("/"`)},
	{contentRule: contentRule{Fam: famPython, Signal: sigHTTPRoute, Needle: "@", Detail: "declares a route handler",
		Re: lazyregexp.New(`^\s*@\w+\.(get|post|put|patch|delete|route|api_route)\(`)}, Code: lazyregexp.New(`^@\w+\.(get|post|put|patch|delete|route|api_route)\(`)},
	{contentRule: contentRule{Fam: famPython, Signal: sigHTTPRoute, Needle: "path(", Detail: "declares a URL route",
		Re: lazyregexp.New(`\b(re_)?path\(\s*r?['"]`)}, Code: lazyregexp.New(`\b(re_)?path\(\s*s\b`)},
	{contentRule: contentRule{Fam: famJava, Signal: sigHTTPRoute, Needle: "Mapping", Detail: "declares a request mapping",
		Re: lazyregexp.New(`@(Get|Post|Put|Patch|Delete|Request)Mapping\b`)}, Code: lazyregexp.New(`@(Get|Post|Put|Patch|Delete|Request)Mapping\b`)},
	{contentRule: contentRule{Fam: famJava, Signal: sigHTTPRoute, Needle: "@Path", Detail: "declares a JAX-RS resource path",
		Re: lazyregexp.New(`@Path\(`)}, Code: lazyregexp.New(`@Path\(`)},
	{contentRule: contentRule{Fam: famRust, Signal: sigHTTPRoute, Needle: "#[", Detail: "declares a route handler",
		Re: lazyregexp.New(`#\[(get|post|put|patch|delete)\(\s*"/`)}, Code: lazyregexp.New(`#\[(get|post|put|patch|delete)\("/"`)},
	{contentRule: contentRule{Fam: famRust, Signal: sigHTTPRoute, Needle: ".route(", Detail: "registers an HTTP route",
		Re: lazyregexp.New(`\.route\(\s*"/`)}, Code: lazyregexp.New(`\.route\("/"`)},
	// workers and scheduling
	{contentRule: contentRule{Fam: famJS, Signal: sigWorker, Needle: "new Worker(", Detail: "starts a worker thread"}, Code: lazyregexp.New(`\bnew Worker\(`)},
	{contentRule: contentRule{Fam: famJS, Signal: sigSchedule, Needle: "setInterval(", Detail: "schedules recurring work with setInterval"}, Code: lazyregexp.New(`\bsetInterval\(`)},
	{contentRule: contentRule{Fam: famJS, Signal: sigSchedule, Needle: "cron.schedule(", Detail: "schedules a cron job"}, Code: lazyregexp.New(`\bcron\.schedule\(`)},
	{contentRule: contentRule{Fam: famGo, Signal: sigSchedule, Needle: "time.NewTicker(", Detail: "schedules recurring work with a ticker"}, Code: lazyregexp.New(`\btime\.NewTicker\(`)},
	{contentRule: contentRule{Fam: famGo, Signal: sigSchedule, Needle: "time.Tick(", Detail: "schedules recurring work with a ticker"}, Code: lazyregexp.New(`\btime\.Tick\(`)},
	{contentRule: contentRule{Fam: famJava, Signal: sigSchedule, Needle: "@Scheduled", Detail: "declares a scheduled task"}, Code: lazyregexp.New(`@Scheduled\b`)},
	{contentRule: contentRule{Fam: famRust, Signal: sigSchedule, Needle: "time::interval(", Detail: "schedules recurring work"}, Code: lazyregexp.New(`\btime::interval\(`)},
	{contentRule: contentRule{Fam: famPython, Signal: sigSchedule, Needle: "schedule.every", Detail: "schedules recurring work"}, Code: lazyregexp.New(`\bschedule\.every\b`)},
}

// Error-type declarations, shared by the customError signal and the
// error-handling conventions. Group 1 is the type's name.
var (
	reJSErrorClass   = lazyregexp.New(`\bclass\s+([A-Za-z_$][\w$]*)\s+extends\s+[\w$.]*Error\b`)
	reGoErrorType    = lazyregexp.New(`^func\s+\(\s*\w*\s*\*?([A-Za-z_]\w*)\s*\)\s+Error\(\)\s+string`)
	reGoSentinel     = lazyregexp.New(`^\s*(?:var\s+)?(Err\w*)\s*=\s*(?:errors\.New|fmt\.Errorf)\(`)
	rePyErrorClass   = lazyregexp.New(`^\s*class\s+([A-Za-z_]\w*)\s*\(\s*[\w.]*(?:Error|Exception)\s*[,)]`)
	reJavaErrorClass = lazyregexp.New(`\bclass\s+([A-Za-z_]\w*)\s+(?:extends|:)\s+[\w.]*(?:Exception|Error)\b`)
	reRustErrorImpl  = lazyregexp.New(`impl\s+(?:std::)?(?:error::)?Error\s+for\s+([A-Za-z_]\w*)`)
)

// nameRule matches a module's path and name; fileRule matches file names.
type nameRule struct {
	Role   string
	Re     *lazyregexp.Regexp
	Weight float64
	Label  string
}

func nameRe(words string) *lazyregexp.Regexp {
	return lazyregexp.New(`(?i)(^|[/_.-])(` + words + `)([/_.-]|$)`)
}

var nameRules = []nameRule{
	{"repository", nameRe(`repository|repositories|dao|daos`), 0.5, "name matches repository vocabulary"},
	{"adapter", nameRe(`adapters?|clients?|gateways?|providers?|integrations?`), 0.5, "name matches adapter vocabulary"},
	{"controller", nameRe(`controllers?|handlers?`), 0.5, "name matches controller vocabulary"},
	{"api-routes", nameRe(`routes?|routers?|api|apis|endpoints?|resolvers?`), 0.45, "name matches route vocabulary"},
	{"service", nameRe(`services?|usecases?|use-cases?|use_cases?|application`), 0.45, "name matches service vocabulary"},
	{"domain", nameRe(`domain|entities|entity|models?`), 0.4, "name matches domain vocabulary"},
	{"infrastructure", nameRe(`infra|infrastructure|db|database|persistence|migrations?|storage`), 0.45, "name matches infrastructure vocabulary"},
	{"eventing", nameRe(`events?|messaging|pubsub|broker|bus`), 0.45, "name matches eventing vocabulary"},
	{"worker", nameRe(`jobs?|workers?|queues?|schedulers?|tasks`), 0.45, "name matches worker vocabulary"},
	{"ui", nameRe(`components?|ui|views|pages|screens|widgets?`), 0.4, "name matches UI vocabulary"},
	{"cli", nameRe(`cli|commands?|cmd|bin`), 0.5, "name matches command-line vocabulary"},
	{"configuration", nameRe(`config|configs|configuration|settings|env`), 0.4, "name matches configuration vocabulary"},
	{"shared", nameRe(`utils?|helpers?|shared|common|lib|libs|types`), 0.35, "name matches shared-code vocabulary"},
	{"test-support", nameRe(`tests?|specs?|testing|testutil|testkit|fixtures|mocks?|testdata`), 0.5, "name matches test vocabulary"},
}

// fileRoleRules read the role from the files' own names (order.repository.ts,
// user_controller.py, OrderService.java); they count only when they cover
// a third of the module's code.
var fileRoleRules = []nameRule{
	{"repository", lazyregexp.New(`(?i)(^|[._-])(repository|repo|dao)$|[a-z](Repository|Dao)$`), 0.4, "file names end in repository/dao"},
	{"controller", lazyregexp.New(`(?i)(^|[._-])(controller|handler)s?$|[a-z](Controller|Handler)$`), 0.4, "file names end in controller/handler"},
	{"service", lazyregexp.New(`(?i)(^|[._-])(service|usecase)s?$|[a-z](Service|UseCase)$`), 0.4, "file names end in service"},
	{"adapter", lazyregexp.New(`(?i)(^|[._-])(adapter|client|gateway)s?$|[a-z](Adapter|Client|Gateway)$`), 0.4, "file names end in adapter/client/gateway"},
	{"domain", lazyregexp.New(`(?i)(^|[._-])(entity|model|aggregate|value-object)s?$|[a-z](Entity|Aggregate)$`), 0.35, "file names end in entity/model"},
	{"api-routes", lazyregexp.New(`(?i)(^|[._-])(routes?|resolver|router)s?$|[a-z](Resolver|Router)$`), 0.4, "file names end in route/resolver"},
	{"ui", lazyregexp.New(`(?i)(^|[._-])(component|page|view|screen)s?$|[a-z](Component|Page|View|Screen)$`), 0.35, "file names end in component/page/view"},
}

// Entry-point contributions to roles.
const (
	weightApplicationEntry = 0.6
	weightCLIEntry         = 0.62
	confWorkspacePackage   = 0.99
)

// layeringRule is a dependency direction that roles say should not exist.
type layeringRule struct {
	Rule     string
	From, To string
}

var layeringRules = []layeringRule{
	{"domain-infrastructure", "domain", "infrastructure"},
	{"domain-adapter", "domain", "adapter"},
	{"application-ui", "application", "ui"},
	{"application-controller", "application", "controller"},
	{"infrastructure-ui", "infrastructure", "ui"},
}

const confViolation = 0.72

// Entry-point file-name patterns (stems).
var (
	reCLIStem         = lazyregexp.New(`(?i)^(cli|bin|command|commands)([-_.].*)?$`)
	reApplicationStem = lazyregexp.New(`(?i)^(index|main|server|app|bootstrap|start)$`)
	reWorkerStem      = lazyregexp.New(`(?i)^(worker|workers|job|jobs|scheduler|consumer)([-_.].*)?$`)
	reScriptFile      = lazyregexp.New(`[\w./@-]+\.(?:[cm]?[jt]sx?|py)\b`)
	// reBuildScript names the package.json scripts that build, check or
	// release the package rather than run it.
	reBuildScript = lazyregexp.New(`(?i)^(pre|post)?(build|compile|bundle|prepare|prepack|prepublish\w*|postinstall|install|generate|codegen|gen|release|publish|clean|lint|format|fmt|typecheck|check)([:_-].*)?$`)
)

// Entry-point confidences.
const (
	confDeclared    = 0.99 // a manifest says so
	confScript      = 0.85
	confTestFile    = 0.95
	confHTTPRoutes  = 0.87
	confWorkerEntry = 0.7
	confCLIName     = 0.8
	confCLILib      = 0.85
	confAppName     = 0.85
	confIndex       = 0.7
	confBarrel      = 0.65
	confGoMain      = 0.95
	confPyMain      = 0.9
)

// testRunners are test frameworks a manifest can declare, by name.
var testRunners = map[string]string{
	"vitest": "vitest", "jest": "jest", "mocha": "mocha", "ava": "ava", "jasmine": "jasmine",
	"tap": "tap", "uvu": "uvu", "@playwright/test": "Playwright", "cypress": "Cypress",
	"pytest": "pytest", "nose2": "nose2",
}

// toolConfig is a formatter, linter or CI recognised from its config file.
type toolConfig struct {
	Tool      string
	Statement string
	Names     []string // base names (or paths, with a slash) that configure it
	Prefixes  []string // path prefixes (directories)
	Section   string   // a pyproject.toml / setup.cfg section that configures it
}

var toolConfigs = []toolConfig{
	{"prettier", "Code is formatted with Prettier", []string{".prettierrc", ".prettierrc.json", ".prettierrc.yaml", ".prettierrc.yml", ".prettierrc.js", ".prettierrc.cjs", ".prettierrc.mjs", ".prettierrc.toml", "prettier.config.js", "prettier.config.cjs", "prettier.config.mjs", "prettier.config.ts"}, nil, ""},
	{"eslint", "Code is linted with ESLint", []string{".eslintrc", ".eslintrc.json", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.yaml", ".eslintrc.yml", "eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts"}, nil, ""},
	{"biome", "Code is linted and formatted with Biome", []string{"biome.json", "biome.jsonc"}, nil, ""},
	{"stylelint", "Styles are linted with Stylelint", []string{".stylelintrc", ".stylelintrc.json", "stylelint.config.js", "stylelint.config.mjs"}, nil, ""},
	{"editorconfig", "Editor settings are shared through .editorconfig", []string{".editorconfig"}, nil, ""},
	{"golangci-lint", "Go code is linted with golangci-lint", []string{".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json"}, nil, ""},
	{"rustfmt", "Rust code is formatted with rustfmt (configured)", []string{"rustfmt.toml", ".rustfmt.toml"}, nil, ""},
	{"clippy", "Rust code is linted with Clippy (configured)", []string{"clippy.toml", ".clippy.toml"}, nil, ""},
	{"ruff", "Python code is linted with Ruff", []string{"ruff.toml", ".ruff.toml"}, nil, "[tool.ruff"},
	{"black", "Python code is formatted with Black", nil, nil, "[tool.black"},
	{"isort", "Python imports are sorted with isort", []string{".isort.cfg"}, nil, "[tool.isort"},
	{"flake8", "Python code is linted with flake8", []string{".flake8"}, nil, "[flake8"},
	{"mypy", "Python code is type-checked with mypy", []string{"mypy.ini", ".mypy.ini"}, nil, "[tool.mypy"},
	{"pre-commit", "Pre-commit hooks are configured with pre-commit", []string{".pre-commit-config.yaml"}, nil, ""},
	{"husky", "Git hooks are managed with husky", nil, []string{".husky/"}, ""},
	{"lefthook", "Git hooks are managed with lefthook", []string{"lefthook.yml", "lefthook.yaml", ".lefthook.yml"}, nil, ""},
	{"commitlint", "Commit messages are checked with commitlint", []string{"commitlint.config.js", "commitlint.config.cjs", "commitlint.config.ts", ".commitlintrc", ".commitlintrc.json"}, nil, ""},
	{"checkstyle", "Java code is checked with Checkstyle", []string{"checkstyle.xml"}, nil, ""},
	{"github-actions", "Continuous integration runs on GitHub Actions", nil, []string{".github/workflows/"}, ""},
	{"gitlab-ci", "Continuous integration runs on GitLab CI", []string{".gitlab-ci.yml"}, nil, ""},
	{"circleci", "Continuous integration runs on CircleCI", nil, []string{".circleci/"}, ""},
}

// devTools are tools recognised from a devDependency.
var devTools = map[string]string{
	"eslint": "eslint", "prettier": "prettier", "@biomejs/biome": "biome", "husky": "husky",
	"lefthook": "lefthook", "@commitlint/cli": "commitlint", "stylelint": "stylelint",
}

// lockfiles name the package manager that wrote them.
var lockfiles = map[string]string{
	"package-lock.json": "npm", "npm-shrinkwrap.json": "npm", "pnpm-lock.yaml": "pnpm",
	"yarn.lock": "yarn", "bun.lockb": "bun", "bun.lock": "bun", "deno.lock": "deno",
	"go.sum": "go modules", "Cargo.lock": "cargo", "poetry.lock": "poetry", "uv.lock": "uv",
	"Pipfile.lock": "pipenv", "pdm.lock": "pdm", "composer.lock": "composer",
	"Gemfile.lock": "bundler", "mix.lock": "mix", "packages.lock.json": "nuget",
	"gradle.lockfile": "gradle",
}

// archKeywords mark a commit subject as an architectural change signal.
var reArchSubject = lazyregexp.New(`(?i)\b(refactor\w*|architect\w*|adrs?|breaking|migrat\w*|restructur\w*|rewrit\w*|rewrote)\b|^\w+(\([^)]*\))?!:`)

// Decision documents.
var (
	reADRDir      = lazyregexp.New(`(?i)(^|/)(adr|adrs|decisions?|decision-records?|architecture/decisions?)/`)
	reADRFile     = lazyregexp.New(`(?i)^(adr[-_]?)?(\d{1,5})[-_.]|^adr[-_]?\d*[-_.]`)
	reDateFile    = lazyregexp.New(`^\d{4}-\d{2}-\d{2}[-_]`)
	reADRHeading  = lazyregexp.New(`(?i)^(adr[-_ ]?(\d{1,5})|decision[-_ ]?(\d{1,5}))\s*[:\-–—.]?\s*(.*)$`)
	reNumHeading  = lazyregexp.New(`^(\d{1,5})[.:)]\s+(.*)$`)
	reDocSection  = lazyregexp.New(`(?i)\b(decisions?|architecture decisions?|design decisions?|invariants?|architecture)\b`)
	reDesignDoc   = lazyregexp.New(`(?i)(^|/)(architecture|design)([./_-]|$)`)
	reStatusLine  = lazyregexp.New(`(?i)^[\s>*_-]*status[*_]*\s*[:\-–—][*_\s]*([A-Za-z]+)`)
	reDateLine    = lazyregexp.New(`(?i)^[\s>*_-]*date[*_]*\s*[:\-–—][*_\s]*(\d{4}-\d{2}-\d{2})`)
	reADRTemplate = lazyregexp.New(`(?i)(^|[-_.])template([-_.]|$)|^(readme|index)$`)
)

var statusMap = map[string]string{
	"accepted": "accepted", "approved": "accepted", "adopted": "accepted", "done": "accepted",
	"proposed": "proposed", "draft": "proposed", "proposal": "proposed", "open": "proposed",
	"deprecated": "deprecated", "superseded": "superseded", "superceded": "superseded",
	"rejected": "rejected", "declined": "rejected",
}

// Decision confidences.
const (
	confADRStatus    = 0.95
	confADRNoStatus  = 0.7
	confDocExplicit  = 0.6
	confDocInferred  = 0.45
	confModuleFormat = 0.9
	confPackageMgr   = 0.8
	confWorkspaces   = 0.95
	confStrictTS     = 0.95
	confDepMax       = 0.7
	confGitSignal    = 0.45
	confStore        = 0.95
	maxGitDecisions  = 5
	maxDepDecisions  = 4
	maxExcerpt       = 300
)

// Convention thresholds (the original's minimum samples and ratios).
const (
	minFileNaming   = 6
	minSymbols      = 4
	minImports      = 4
	minTests        = 2
	minExports      = 4
	minErrorTypes   = 2
	ratioFileNaming = 0.7
	ratioSymbols    = 0.85
	ratioImports    = 0.7
	maxConvEvidence = 4
)
