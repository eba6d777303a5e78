variable "environment" {
  description = "Deployment environment"
  type        = string
  default     = "staging"
}

variable "table_prefix" {
  type    = string
  default = "acme"
}

variable "billing_mode" {
  type    = string
  default = "PROVISIONED"
}

variable "capacity" {
  type = object({ read = number, write = number })
  default = {
    read  = 10
    write = 5
  }
}

variable "indexes" {
  type = map(object({ hash_key = string, range_key = string, projection = string }))
  default = {
    "by-status" = { hash_key = "status", range_key = "updated_at", projection = "KEYS_ONLY" }
    "by-owner"  = { hash_key = "owner_id", range_key = "updated_at", projection = "ALL" }
  }
}

variable "kms_key_arn" {
  type    = string
  default = "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"
}

variable "replica_regions" {
  type    = list(string)
  default = []
}
