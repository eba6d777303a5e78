# The community module most teams use instead of the raw resource.
variable "env" {
  default = "dev"
}

module "dynamodb_table" {
  source  = "terraform-aws-modules/dynamodb-table/aws"
  version = "~> 4.0"

  name      = "carts-${var.env}"
  hash_key  = "cart_id"
  range_key = "line"

  attributes = [
    { name = "cart_id", type = "S" },
    { name = "line", type = "N" },
    { name = "customer", type = "S" },
  ]

  global_secondary_indexes = [
    {
      name               = "by-customer"
      hash_key           = "customer"
      projection_type    = "INCLUDE"
      non_key_attributes = ["total"]
    }
  ]

  ttl_enabled        = true
  ttl_attribute_name = "expires"

  point_in_time_recovery_enabled = var.env == "prod"
  server_side_encryption_enabled = true
  deletion_protection_enabled    = true

  replica_regions = ["eu-west-1"]
  autoscaling_enabled = false

  tags = {
    Terraform   = "true"
    Environment = var.env
  }
}

module "disabled" {
  source       = "terraform-aws-modules/dynamodb-table/aws"
  create_table = false
  name         = "never"
  hash_key     = "id"
}
