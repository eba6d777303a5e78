terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0"
    }
  }
}

provider "aws" {
  region = "eu-west-1"
}

locals {
  name_prefix = "${var.table_prefix}-${var.environment}"
  is_prod     = var.environment == "prod"
  common_tags = {
    Environment = var.environment
    ManagedBy   = "terraform"
  }
  key_attributes = concat(["pk", "sk"], distinct([for i in values(var.indexes) : i.hash_key]), ["updated_at"])
}

resource "aws_dynamodb_table" "orders" {
  name           = "${local.name_prefix}-orders"
  billing_mode   = var.billing_mode
  read_capacity  = var.capacity.read
  write_capacity = var.capacity["write"]
  hash_key       = "pk"
  range_key      = "sk"
  table_class    = local.is_prod ? "STANDARD" : "STANDARD_INFREQUENT_ACCESS"

  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"

  deletion_protection_enabled = !local.is_prod ? false : true

  dynamic "attribute" {
    for_each = toset(local.key_attributes)
    content {
      name = attribute.value
      type = "S"
    }
  }

  dynamic "global_secondary_index" {
    for_each = var.indexes
    iterator = gsi
    content {
      name            = gsi.key
      hash_key        = gsi.value.hash_key
      range_key       = gsi.value.range_key
      projection_type = gsi.value.projection
      read_capacity   = var.capacity.read / 2
      write_capacity  = var.capacity.write
    }
  }

  ttl {
    attribute_name = "expires_at"
    enabled        = true
  }

  point_in_time_recovery {
    enabled = true
  }

  server_side_encryption {
    enabled     = true
    kms_key_arn = var.kms_key_arn
  }

  dynamic "replica" {
    for_each = var.replica_regions
    content {
      region_name = replica.value
    }
  }

  tags = merge(local.common_tags, {
    Name = "${local.name_prefix}-orders"
  })

  lifecycle {
    prevent_destroy = false
  }
}

resource "aws_dynamodb_table" "sessions" {
  for_each = toset(["web", "mobile"])

  name         = "${local.name_prefix}-${each.key}-sessions"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "session_id"

  attribute {
    name = "session_id"
    type = "S"
  }

  ttl {
    attribute_name = "ttl"
    enabled        = true
  }

  tags = local.common_tags
}

resource "aws_dynamodb_contributor_insights" "orders" {
  table_name = aws_dynamodb_table.orders.name
}

resource "aws_appautoscaling_target" "orders_read" {
  max_capacity       = 100
  min_capacity       = var.capacity.read
  resource_id        = "table/${aws_dynamodb_table.orders.name}"
  scalable_dimension = "dynamodb:table:ReadCapacityUnits"
  service_namespace  = "dynamodb"
}

resource "aws_appautoscaling_policy" "orders_read" {
  name               = "DynamoDBReadCapacityUtilization:${aws_appautoscaling_target.orders_read.resource_id}"
  policy_type        = "TargetTrackingScaling"
  resource_id        = aws_appautoscaling_target.orders_read.resource_id
  scalable_dimension = aws_appautoscaling_target.orders_read.scalable_dimension
  service_namespace  = aws_appautoscaling_target.orders_read.service_namespace

  target_tracking_scaling_policy_configuration {
    predefined_metric_specification {
      predefined_metric_type = "DynamoDBReadCapacityUtilization"
    }
    target_value = 70
  }
}
