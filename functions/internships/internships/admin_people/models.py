from __future__ import annotations

from typing import Literal, Optional

from pydantic import ConfigDict, Field, StrictBool

from lambdakit.model import Model
from lambdakit.validated import WebUrl

from ..accounts.phones import OptionalPhone


class RoleUpdate(Model):
    model_config = ConfigDict(extra="forbid")

    permissions: Optional[list[str]] = Field(None, max_length=64)
    reset: StrictBool = False
    version: Optional[int] = Field(None, ge=0)


StaffRole = Literal["admin", "super_admin", "project_admin", "reviewer"]
AnyRole = Literal["student", "admin", "super_admin", "project_admin", "reviewer"]


class UserCreate(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    email: str = Field(min_length=3, max_length=254)
    password: str = Field(min_length=8, max_length=128)
    name: str = Field(min_length=1, max_length=100)
    role: StaffRole = "reviewer"
    phone: OptionalPhone = None


class UserUpdate(Model):
    """Fields staff may edit; email and role are not here (role has its own route)."""
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    name: Optional[str] = Field(None, min_length=1, max_length=100)
    phone: OptionalPhone = None  # null or "" clears it
    college: Optional[str] = Field(None, max_length=200)
    degree: Optional[str] = Field(None, max_length=100)
    branch: Optional[str] = Field(None, max_length=100)
    year_of_study: Optional[int] = Field(None, ge=1, le=10)
    graduation_year: Optional[int] = Field(None, ge=1950, le=2100)
    birthday: Optional[str] = Field(None, pattern=r"^\d{4}-\d{2}-\d{2}$")
    gender: Optional[str] = Field(None, max_length=30)
    city: Optional[str] = Field(None, max_length=100)
    state: Optional[str] = Field(None, max_length=100)
    country: Optional[str] = Field(None, max_length=100)
    linkedin_url: Optional[WebUrl] = Field(None, max_length=300)
    github_url: Optional[WebUrl] = Field(None, max_length=300)
    avatar_url: Optional[WebUrl] = Field(None, max_length=1000)
    disabled: Optional[StrictBool] = None


class RoleChange(Model):
    model_config = ConfigDict(extra="forbid")

    role: AnyRole


LeadStatus = Literal["new", "contacted", "qualified", "converted", "lost"]


class LeadPatch(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    status: Optional[LeadStatus] = None
    notes: Optional[str] = Field(None, max_length=5000)


class LeadConvert(Model):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    email: Optional[str] = Field(None, min_length=3, max_length=254)
    name: Optional[str] = Field(None, min_length=1, max_length=100)
    phone: OptionalPhone = None  # null or "": the lead's own phone


class FixAvatars(Model):
    model_config = ConfigDict(extra="ignore")

    dryRun: StrictBool = False
    limit: int = Field(1000, ge=1, le=5000)


# ---------------------------------------------------------------- OpenAPI: queries and responses (round 2)
from ..admin_common.schemas import DateRange, ListQuery, Message, Ok, Open  # noqa: E402


class RoleView(Open):
    role: str
    permissions: list[str]
    defaults: list[str]
    customised: bool
    editable: bool
    version: int
    updatedAt: Optional[str] = None
    updatedBy: Optional[str] = None


class RolesOut(Ok):
    roles: list[RoleView]
    permissions: list[str]


class RoleOut(Ok):
    role: RoleView


class ActivityQuery(ListQuery, DateRange):
    admin_id: str = ""
    action_type: str = ""
    entity_type: str = ""
    search: str = Field("", max_length=200)


class ActivityLog(Open):
    id: str
    admin_id: str
    action_type: str
    entity_type: str
    entity_id: str
    before: Optional[dict] = None
    after: Optional[dict] = None
    created_at: str


class UsersQuery(ListQuery):
    search: str = Field("", max_length=200)
    role: str = Field("", description="student|admin|super_admin|project_admin|reviewer")


class AdminUser(Open):
    """A user without secrets (no password hash)."""
    id: str
    email: str
    role: str
    name: Optional[str] = None


class UserOut(Ok):
    user: AdminUser


class UserBrief(Open):
    id: str
    name: Optional[str] = None
    email: str
    role: str


class StudentsQuery(ListQuery):
    search: str = Field("", max_length=200)


class StudentBrief(Open):
    id: str
    name: Optional[str] = None
    email: str
    phone: Optional[str] = None
    college: Optional[str] = None
    city: Optional[str] = None
    created_at: Optional[str] = None
    avatar_url: Optional[str] = None


class FixAvatarsOut(Ok):
    matched: int
    updated: int
    dryRun: bool
    remaining: bool


class LeadsQuery(ListQuery, DateRange):
    domain: str = ""
    status: str = Field("", description="new|contacted|qualified|converted|lost")
    search: str = Field("", max_length=200)


class Lead(Open):
    id: str
    status: str
    name: Optional[str] = None
    email: Optional[str] = None
    phone: Optional[str] = None
    notes: Optional[str] = None
    created_at: Optional[str] = None


class LeadOut(Ok):
    lead: Lead


class LeadConvertOut(Ok):
    lead: Lead
    user: UserBrief
    setPasswordLink: str
    expiresAt: str
    emailId: str


Deleted = Message  # {success, message}
